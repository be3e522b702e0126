import { limitedToMemberQueues } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { blindOffNotice } from "./blind";
import { queueNotFound } from "./membership";
import { queueCounts } from "./queue-counts";
import { parseStoredLabelRule } from "./queue-runs";

/**
 * One queue's settings and who has done what: the queue's dashboard. An
 * annotator (whose membership the procedure's tier has checked) sees only
 * their own progress: not who else works it, nor the runs and selection behind it.
 */
export async function queueDashboard({ db, user, input }: ServiceArgs<{ queueId: string }>) {
  const limited = limitedToMemberQueues(user.role);
  const found = await db.annotationQueue.findUnique({
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
  const [blindOff, counts, finished, active, memberRows] = await Promise.all([
    blindOffNotice(db, found, user.role),
    queueCounts(db, [found.id], user.id),
    db.annotationAssignment.groupBy({ by: ["annotatorId", "status"], where: { ...inQueue, status: { in: ["submitted", "skipped"] } }, _count: { _all: true } }),
    db.annotationAssignment.groupBy({ by: ["annotatorId"], where: { ...inQueue, status: "leased", expiresAt: { gt: now } }, _count: { _all: true } }),
    limited
      ? []
      : db.annotationQueueMember.findMany({
          where: { queueId: found.id },
          orderBy: [{ addedAt: "asc" }, { id: "asc" }],
          select: { userId: true, addedAt: true, user: { select: { name: true, email: true, role: true } }, addedBy: { select: { name: true } } },
        }),
  ]);
  const annotatorIds = [...new Set([...finished.map((r) => r.annotatorId), ...active.map((r) => r.annotatorId)])];
  const users = await db.user.findMany({ where: { id: { in: limited ? annotatorIds.filter((id) => id === user.id) : annotatorIds } }, select: { id: true, name: true, email: true } });
  const annotators = users
    .map((annotator) => ({
      userId: annotator.id,
      name: annotator.name,
      email: annotator.email,
      submitted: finished.find((r) => r.annotatorId === annotator.id && r.status === "submitted")?._count._all ?? 0,
      skipped: finished.find((r) => r.annotatorId === annotator.id && r.status === "skipped")?._count._all ?? 0,
      /** Unexpired leases held now. */
      leased: active.find((r) => r.annotatorId === annotator.id)?._count._all ?? 0,
    }))
    .sort((a, b) => b.submitted - a.submitted || a.name.localeCompare(b.name));
  const { items, completedItems, adjudicatedItems, submissions, mySubmitted } = counts.get(found.id)!;
  const { dataset, labelRule, ...settings } = found;
  const members = memberRows.map((m) => ({ userId: m.userId, name: m.user.name, email: m.user.email, role: m.user.role, addedAt: m.addedAt, addedByName: m.addedBy?.name ?? null }));
  return {
    ...settings,
    /** Set when the queue is not blind: who turned blind review off, when and why (no name for an annotator). */
    blindOff,
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
}
