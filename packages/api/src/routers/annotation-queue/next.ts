import { z } from "zod";
import { queueAnnotateProcedure } from "../../trpc";
import { loadAssignmentView } from "./assignment-view";
import { assertQueueVisible, queueNotFound } from "./membership";
import { lockQueueSlots, nextClaimableItemId, SLOT_TRANSACTION } from "./leases";

export const nextInput = z.object({ queueId: z.string().min(1) });

/**
 * The caller's current item in a queue: the lease they hold (resume after a
 * reload), else a newly leased one; null when nothing is left for them or the
 * queue is archived. Claims run one at a time per queue (advisory lock), so no
 * item is leased beyond its slots and simultaneous annotators get different items.
 */
export const next = queueAnnotateProcedure.input(nextInput).mutation(async ({ ctx, input }) => {
  const me = ctx.user.id;
  const assignmentId = await ctx.db.$transaction(async (tx) => {
    const queue = await tx.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true, annotatorsPerItem: true, leaseSeconds: true, archivedAt: true } });
    if (!queue) throw queueNotFound(input.queueId);
    await assertQueueVisible(tx, ctx.user, queue.id);
    if (queue.archivedAt) return null;
    await lockQueueSlots(tx, queue.id);
    // Read the clock after the lock: a claim that waited must not judge leases by the time it arrived.
    const now = new Date();
    const held = await tx.annotationAssignment.findFirst({
      where: { annotatorId: me, status: "leased", expiresAt: { gt: now }, item: { queueId: queue.id } },
      orderBy: { leasedAt: "desc" },
      select: { id: true },
    });
    if (held) return held.id;
    const itemId = await nextClaimableItemId(tx, queue, me, now);
    if (!itemId) return null;
    const lease = { status: "leased" as const, leasedAt: now, expiresAt: new Date(now.getTime() + queue.leaseSeconds * 1000), submittedAt: null };
    // An existing row can only be my own expired lease: submitted and skipped items are never claimable again.
    const assignment = await tx.annotationAssignment.upsert({
      where: { itemId_annotatorId: { itemId, annotatorId: me } },
      create: { itemId, annotatorId: me, ...lease },
      update: lease,
      select: { id: true },
    });
    return assignment.id;
  }, SLOT_TRANSACTION);
  return assignmentId ? loadAssignmentView(ctx.db, assignmentId, me) : null;
});
