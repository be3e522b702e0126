import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { queueManageProcedure } from "../../trpc";
import { annotatorsToAdd, queueNotFound } from "./membership";
import { recordAudit } from "@stepwiser/db";

export const addMembersInput = z.object({
  queueId: z.string().min(1),
  userIds: z.array(z.string().min(1)).min(1).max(500),
});

/**
 * Lets annotators work a queue. Adding someone already a member changes
 * nothing and writes no audit row for them.
 */
export const addMembers = queueManageProcedure.input(addMembersInput).mutation(async ({ ctx, input }) => {
  const queue = await ctx.db.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true } });
  if (!queue) throw queueNotFound(input.queueId);
  const users = await annotatorsToAdd(ctx.db, input.userIds, "userIds");
  return ctx.db.$transaction(async (tx) => {
    const existing = await tx.annotationQueueMember.findMany({ where: { queueId: queue.id, userId: { in: users.map((u) => u.id) } }, select: { userId: true } });
    const already = new Set(existing.map((m) => m.userId));
    const added = users.filter((user) => !already.has(user.id));
    if (added.length === 0) return { added: [] as string[] };
    await tx.annotationQueueMember.createMany({ data: added.map((user) => ({ queueId: queue.id, userId: user.id, addedById: ctx.user.id })), skipDuplicates: true });
    await recordAudit(tx, ctx.user.id, {
      action: "annotation_queue.members_added",
      entityType: "AnnotationQueue",
      entityId: queue.id,
      after: { members: added.map((user) => ({ userId: user.id, email: user.email })) },
    });
    return { added: added.map((user) => user.id) };
  });
});

export const removeMemberInput = z.object({ queueId: z.string().min(1), userId: z.string().min(1) });

/**
 * Takes a queue away from an annotator: their unexpired leases in it end now
 * (the items go back to others), their submitted labels stay.
 */
export const removeMember = queueManageProcedure.input(removeMemberInput).mutation(async ({ ctx, input }) => {
  return ctx.db.$transaction(async (tx) => {
    const member = await tx.annotationQueueMember.findUnique({
      where: { queueId_userId: { queueId: input.queueId, userId: input.userId } },
      select: { id: true, addedAt: true, user: { select: { email: true } } },
    });
    if (!member) throw new TRPCError({ code: "NOT_FOUND", message: `user ${input.userId} is not a member of annotation queue ${input.queueId}` });
    await tx.annotationQueueMember.delete({ where: { id: member.id } });
    const now = new Date();
    const released = await tx.annotationAssignment.updateMany({
      where: { annotatorId: input.userId, status: "leased", expiresAt: { gt: now }, item: { queueId: input.queueId } },
      data: { expiresAt: now },
    });
    await recordAudit(tx, ctx.user.id, {
      action: "annotation_queue.member_removed",
      entityType: "AnnotationQueue",
      entityId: input.queueId,
      before: { userId: input.userId, email: member.user.email, addedAt: member.addedAt.toISOString() },
      after: { releasedLeases: released.count },
    });
    return { removed: input.userId, releasedLeases: released.count };
  });
});

/** Accounts a queue can be given to: everyone holding the annotator role, for the members picker. */
export const annotatorCandidates = queueManageProcedure.input(z.object({}).default({})).query(async ({ ctx }) => {
  return ctx.db.user.findMany({ where: { role: "annotator" }, orderBy: [{ name: "asc" }, { email: "asc" }], select: { id: true, name: true, email: true } });
});
