import type { ServiceArgs } from "../args";
import { loadAssignmentView, type AssignmentView } from "./assignment-view";
import { lockQueueSlots, SLOT_TRANSACTION } from "./leases";
import { queueNotFound } from "./membership";

/**
 * Takes back the caller's latest submission in a queue: the assignment is
 * leased to them again with a fresh lease, and its view carries the labels they
 * had sent (`mine`) to edit. The rows stay (history); resubmitting appends.
 * Any other lease they held in the queue is released, so they hold one item at
 * a time and `next` resumes the undone one. Null when there is nothing to undo.
 */
export async function undoLastSubmission({ db, user, input }: ServiceArgs<{ queueId: string }>): Promise<AssignmentView | null> {
  const me = user.id;
  const assignmentId = await db.$transaction(async (tx) => {
    const queue = await tx.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true, leaseSeconds: true } });
    if (!queue) throw queueNotFound(input.queueId);
    await lockQueueSlots(tx, queue.id);
    const last = await tx.annotationAssignment.findFirst({
      where: { annotatorId: me, status: "submitted", item: { queueId: queue.id } },
      orderBy: [{ submittedAt: "desc" }, { id: "desc" }],
      select: { id: true },
    });
    if (!last) return null;
    const now = new Date();
    await tx.annotationAssignment.updateMany({
      where: { annotatorId: me, status: "leased", expiresAt: { gt: now }, item: { queueId: queue.id }, id: { not: last.id } },
      data: { expiresAt: now },
    });
    await tx.annotationAssignment.update({
      where: { id: last.id },
      data: { status: "leased", leasedAt: now, expiresAt: new Date(now.getTime() + queue.leaseSeconds * 1000), submittedAt: null },
    });
    return last.id;
  }, SLOT_TRANSACTION);
  return assignmentId ? loadAssignmentView(db, assignmentId, me) : null;
}
