import { limitedToMemberQueues } from "@stepwiser/core";
import { z } from "zod";
import { queueViewProcedure } from "../../trpc";
import { assertQueueVisible, queueNotFound } from "./membership";
import { queueCounts } from "./queue-counts";
import { parseStoredLabelRule } from "./queue-runs";

export const queueInput = z.object({ queueId: z.string().min(1) });

/**
 * One queue's settings and who has done what: the queue's dashboard. An
 * annotator sees it only for a queue they are a member of, and only their own
 * progress: not who else works it, nor the runs and selection behind it.
 */
export const queue = queueViewProcedure.input(queueInput).query(async ({ ctx, input }) => {
  await assertQueueVisible(ctx.db, ctx.user, input.queueId);
  const limited = limitedToMemberQueues(ctx.user.role);
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
  if (!found) throw queueNotFound(input.queueId);
  const now = new Date();
  const inQueue = { item: { queueId: found.id } };
  const [counts, finished, active, memberRows] = await Promise.all([
    queueCounts(ctx.db, [found.id], ctx.user.id),
    ctx.db.annotationAssignment.groupBy({ by: ["annotatorId", "status"], where: { ...inQueue, status: { in: ["submitted", "skipped"] } }, _count: { _all: true } }),
    ctx.db.annotationAssignment.groupBy({ by: ["annotatorId"], where: { ...inQueue, status: "leased", expiresAt: { gt: now } }, _count: { _all: true } }),
    limited
      ? []
      : ctx.db.annotationQueueMember.findMany({
          where: { queueId: found.id },
          orderBy: [{ addedAt: "asc" }, { id: "asc" }],
          select: { userId: true, addedAt: true, user: { select: { name: true, email: true, role: true } }, addedBy: { select: { name: true } } },
        }),
  ]);
  const annotatorIds = [...new Set([...finished.map((r) => r.annotatorId), ...active.map((r) => r.annotatorId)])];
  const users = await ctx.db.user.findMany({ where: { id: { in: limited ? annotatorIds.filter((id) => id === ctx.user.id) : annotatorIds } }, select: { id: true, name: true, email: true } });
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
  const members = memberRows.map((m) => ({ userId: m.userId, name: m.user.name, email: m.user.email, role: m.user.role, addedAt: m.addedAt, addedByName: m.addedBy?.name ?? null }));
  return {
    ...settings,
    ...(limited ? { selection: null, annotateRunId: null, judgeRunId: null, createdById: null, segmentationMethod: "" } : {}),
    members,
    datasetName: limited ? null : dataset.name,
    labelRule: limited ? null : parseStoredLabelRule(labelRule),
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
