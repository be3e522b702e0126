import type { ServiceArgs } from "../args";
import { loadAssignmentView, type AssignmentView } from "./assignment-view";
import { heldOrNextItem, lockQueueForClaim, SLOT_TRANSACTION } from "./leases";
import { queueNotFound } from "./membership";

/**
 * The caller's current item in a queue: the lease they hold (resume after a
 * reload), else a newly leased one; null when nothing is left for them or the
 * queue is archived. Claims run one at a time per queue (advisory lock), so no
 * item is leased beyond its slots and simultaneous annotators get different items.
 * Three statements hold the lock: the queue's settings with the lock, the held
 * lease or the next item, and the lease written.
 */
export async function claimNextItem({ db, user, input }: ServiceArgs<{ queueId: string }>): Promise<AssignmentView | null> {
  const me = user.id;
  const assignmentId = await db.$transaction(async (tx) => {
    const queue = await lockQueueForClaim(tx, input.queueId);
    if (!queue) throw queueNotFound(input.queueId);
    if (queue.archivedAt) return null;
    // Read the clock after the lock: a claim that waited must not judge leases by the time it arrived.
    const now = new Date();
    const { held, itemId } = await heldOrNextItem(tx, queue, me, now);
    if (held) return held;
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
