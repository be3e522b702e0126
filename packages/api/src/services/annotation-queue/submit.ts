import { ConflictError, submissionToStore, type SubmittedChunkLabel } from "@stepwiser/core";
import { Prisma, type AnnotationScheme } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { loadAssignmentView, type AssignmentView } from "./assignment-view";
import { lockQueueSlots, SLOT_TRANSACTION, slotsTakenByOthersSql, utcTimestamp } from "./leases";
import { assignmentNotFound, notYours } from "./membership";

export interface SubmitInput {
  assignmentId: string;
  labels: SubmittedChunkLabel[];
  /** first_error scheme: the first wrong chunk, -1 for none. */
  firstErrorIndex?: number;
}

/**
 * Stores the caller's labels for their leased item: one HumanLabel row per
 * chunk, appended (a resubmission after undo adds rows, never edits), and the
 * assignment marked submitted, together. A lease that ran out still counts if
 * nobody took its slot meanwhile; if someone did, the work is refused
 * (ConflictError) rather than exceeding the item's annotator count.
 * The procedure's tier has checked the caller may use the assignment's queue.
 */
export async function submitAssignment({ db, user, input }: ServiceArgs<SubmitInput>): Promise<{ assignment: AssignmentView }> {
  const me = user.id;
  await db.$transaction(async (tx) => {
    // One round trip for the assignment, its item and the queue's settings.
    const [row] = await tx.$queryRaw<
      Array<{ annotatorId: string; itemId: string; queueId: string; segmentationId: string; scheme: AnnotationScheme; annotatorsPerItem: number }>
    >(Prisma.sql`
      SELECT a."annotatorId", a."itemId", i."queueId", i."segmentationId", q.scheme::text AS scheme, q."annotatorsPerItem"
      FROM "AnnotationAssignment" a JOIN "AnnotationItem" i ON i.id = a."itemId" JOIN "AnnotationQueue" q ON q.id = i."queueId"
      WHERE a.id = ${input.assignmentId}`);
    if (!row) throw assignmentNotFound(input.assignmentId);
    if (row.annotatorId !== me) throw notYours();
    // The labels are checked against the solution's chunks before the queue's lock is taken: a bad submission waits on nobody.
    const chunks = await tx.chunk.findMany({ where: { segmentationId: row.segmentationId }, orderBy: { index: "asc" }, select: { id: true, index: true } });
    const stored = submissionToStore(row.scheme, chunks, input.labels, input.firstErrorIndex);
    await lockQueueSlots(tx, row.queueId);
    const now = new Date();
    const at = utcTimestamp(now);
    // Under the lock, in one statement: still leased (a concurrent submit, skip or undo of it has finished by now), and
    // its slot still its own (unexpired, or expired with nobody having taken the slot meanwhile).
    const marked = await tx.$executeRaw(Prisma.sql`
      UPDATE "AnnotationAssignment" a
      SET status = 'submitted', "submittedAt" = ${at}, "firstErrorIndex" = ${stored.firstErrorIndex}
      WHERE a.id = ${input.assignmentId} AND a.status = 'leased'
        AND (a."expiresAt" > ${at} OR (${slotsTakenByOthersSql(row.itemId, me, now)}) < ${row.annotatorsPerItem}::int)`);
    if (marked === 0) {
      const current = await tx.annotationAssignment.findUniqueOrThrow({ where: { id: input.assignmentId }, select: { status: true } });
      if (current.status !== "leased") {
        throw new ConflictError(`this assignment was already ${current.status}${current.status === "submitted" ? "; undo it to change the labels" : ""}`);
      }
      throw new ConflictError("lease expired and another annotator took this item's slot; your labels were not saved. Ask for the next item.");
    }
    await tx.humanLabel.createMany({
      data: stored.labels.map((label) => ({
        chunkId: label.chunkId,
        authorId: me,
        rating: label.rating,
        flagged: label.flagged,
        note: label.note,
        source: "annotation",
        queueId: row.queueId,
        itemId: row.itemId,
        assignmentId: input.assignmentId,
        // One time for the whole submission: its rows form one batch in the history and the export.
        createdAt: now,
      })),
    });
  }, SLOT_TRANSACTION);
  return { assignment: await loadAssignmentView(db, input.assignmentId, me) };
}
