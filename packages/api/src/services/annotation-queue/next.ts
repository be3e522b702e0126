import type { ServiceArgs } from "../args";
import { loadAssignmentView, type AssignmentView } from "./assignment-view";
import { lockQueueSlots, nextClaimableItemId, SLOT_TRANSACTION } from "./leases";
import { queueNotFound } from "./membership";

/**
 * The caller's current item in a queue: the lease they hold (resume after a
 * reload), else a newly leased one; null when nothing is left for them or the
 * queue is archived. Claims run one at a time per queue (advisory lock), so no
 * item is leased beyond its slots and simultaneous annotators get different items.
 */
export async function claimNextItem({ db, user, input }: ServiceArgs<{ queueId: string }>): Promise<AssignmentView | null> {
  const me = user.id;
  const assignmentId = await db.$transaction(async (tx) => {
    const queue = await tx.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true, annotatorsPerItem: true, leaseSeconds: true, archivedAt: true } });
    if (!queue) throw queueNotFound(input.queueId);
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
  return assignmentId ? loadAssignmentView(db, assignmentId, me) : null;
}
