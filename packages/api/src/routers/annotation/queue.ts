import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { viewerProcedure } from "../../trpc";
import { queueCounts } from "./queue-counts";
import { parseStoredLabelRule } from "./queue-runs";

export const queueInput = z.object({ queueId: z.string().min(1) });

/** One queue's settings and who has done what: the queue's dashboard. */
export const queue = viewerProcedure.input(queueInput).query(async ({ ctx, input }) => {
  const found = await ctx.db.annotationQueue.findUnique({
    where: { id: input.queueId },
    select: {
      id: true,
      name: true,
      instructions: true,
      scheme: true,
      annotatorsPerItem: true,
      leaseSeconds: true,
      blind: true,
      datasetId: true,
      dataset: { select: { name: true } },
      segmentationMethod: true,
      annotateRunId: true,
      labelRule: true,
      judgeRunId: true,
      selection: true,
      createdById: true,
      createdAt: true,
      archivedAt: true,
    },
  });
  if (!found) throw new TRPCError({ code: "NOT_FOUND", message: `annotation queue ${input.queueId} does not exist` });
  const now = new Date();
  const inQueue = { item: { queueId: found.id } };
  const [counts, finished, active] = await Promise.all([
    queueCounts(ctx.db, [found.id], ctx.user.id),
    ctx.db.annotationAssignment.groupBy({ by: ["annotatorId", "status"], where: { ...inQueue, status: { in: ["submitted", "skipped"] } }, _count: { _all: true } }),
    ctx.db.annotationAssignment.groupBy({ by: ["annotatorId"], where: { ...inQueue, status: "leased", expiresAt: { gt: now } }, _count: { _all: true } }),
  ]);
  const annotatorIds = [...new Set([...finished.map((r) => r.annotatorId), ...active.map((r) => r.annotatorId)])];
  const users = await ctx.db.user.findMany({ where: { id: { in: annotatorIds } }, select: { id: true, name: true, email: true } });
  const annotators = users
    .map((user) => ({
      userId: user.id,
      name: user.name,
      email: user.email,
      submitted: finished.find((r) => r.annotatorId === user.id && r.status === "submitted")?._count._all ?? 0,
      skipped: finished.find((r) => r.annotatorId === user.id && r.status === "skipped")?._count._all ?? 0,
      /** Unexpired leases held now. */
      leased: active.find((r) => r.annotatorId === user.id)?._count._all ?? 0,
    }))
    .sort((a, b) => b.submitted - a.submitted || a.name.localeCompare(b.name));
  const { items, completedItems, adjudicatedItems, submissions, mySubmitted } = counts.get(found.id)!;
  const { dataset, labelRule, ...settings } = found;
  return {
    ...settings,
    datasetName: dataset.name,
    labelRule: parseStoredLabelRule(labelRule),
    progress: {
      items,
      completedItems,
      submissions,
      activeLeases: active.reduce((n, r) => n + r._count._all, 0),
      adjudicatedItems,
      mySubmitted,
      annotators,
    },
  };
});
