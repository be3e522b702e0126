import { NotFoundError } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs, ServiceContext } from "../args";
import { annotatorsToAdd, queueNotFound } from "./membership";

/**
 * Lets annotators work a queue. Adding someone already a member changes
 * nothing and writes no audit row for them.
 */
export async function addQueueMembers({ db, user, input }: ServiceArgs<{ queueId: string; userIds: string[] }>): Promise<{ added: string[] }> {
  const queue = await db.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true } });
  if (!queue) throw queueNotFound(input.queueId);
  const users = await annotatorsToAdd(db, input.userIds, "userIds");
  return db.$transaction(async (tx) => {
    const existing = await tx.annotationQueueMember.findMany({ where: { queueId: queue.id, userId: { in: users.map((u) => u.id) } }, select: { userId: true } });
    const already = new Set(existing.map((m) => m.userId));
    const added = users.filter((candidate) => !already.has(candidate.id));
    if (added.length === 0) return { added: [] };
    await tx.annotationQueueMember.createMany({ data: added.map((member) => ({ queueId: queue.id, userId: member.id, addedById: user.id })), skipDuplicates: true });
    await recordAudit(tx, user.id, {
      action: "annotation_queue.members_added",
      entityType: "AnnotationQueue",
      entityId: queue.id,
      after: { members: added.map((member) => ({ userId: member.id, email: member.email })) },
    });
    return { added: added.map((member) => member.id) };
  });
}

/**
 * Takes a queue away from an annotator: their unexpired leases in it end now
 * (the items go back to others), their submitted labels stay.
 */
export async function removeQueueMember({ db, user, input }: ServiceArgs<{ queueId: string; userId: string }>) {
  return db.$transaction(async (tx) => {
    const member = await tx.annotationQueueMember.findUnique({
      where: { queueId_userId: { queueId: input.queueId, userId: input.userId } },
      select: { id: true, addedAt: true, user: { select: { email: true } } },
    });
    if (!member) throw new NotFoundError(`user ${input.userId} is not a member of annotation queue ${input.queueId}`);
    await tx.annotationQueueMember.delete({ where: { id: member.id } });
    const now = new Date();
    const released = await tx.annotationAssignment.updateMany({
      where: { annotatorId: input.userId, status: "leased", expiresAt: { gt: now }, item: { queueId: input.queueId } },
      data: { expiresAt: now },
    });
    await recordAudit(tx, user.id, {
      action: "annotation_queue.member_removed",
      entityType: "AnnotationQueue",
      entityId: input.queueId,
      before: { userId: input.userId, email: member.user.email, addedAt: member.addedAt.toISOString() },
      after: { releasedLeases: released.count },
    });
    return { removed: input.userId, releasedLeases: released.count };
  });
}

/** Accounts a queue can be given to: everyone holding the annotator role, for the members picker. */
export async function listAnnotatorCandidates({ db }: ServiceContext) {
  return db.user.findMany({ where: { role: "annotator" }, orderBy: [{ name: "asc" }, { email: "asc" }], select: { id: true, name: true, email: true } });
}
