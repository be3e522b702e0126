import { HUMAN_RATINGS, submissionToStore, type HumanRating } from "@stepwiser/core";
import { Prisma, type AnnotationScheme } from "@stepwiser/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { queueAnnotateProcedure } from "../../trpc";
import { loadAssignmentView } from "./assignment-view";
import { assertQueueVisible, assignmentNotFound } from "./membership";
import { lockQueueSlots, SLOT_TRANSACTION, slotsTakenByOthers } from "./leases";

const rating = z.union(HUMAN_RATINGS.map((r) => z.literal(r)) as [z.ZodLiteral<HumanRating>, z.ZodLiteral<HumanRating>, z.ZodLiteral<HumanRating>]).nullable();

export const chunkLabelInput = z.object({
  chunkId: z.string().min(1),
  /** -1 wrong, 0 neutral, +1 right; null = unrated (first_error scheme, where ratings follow the pick). */
  rating,
  flagged: z.boolean().default(false),
  note: z.string().max(2000).optional(),
});

export const submitInput = z.object({
  assignmentId: z.string().min(1),
  labels: z.array(chunkLabelInput).max(2000),
  /** first_error scheme: the first wrong chunk, -1 for none. */
  firstErrorIndex: z.number().int().min(-1).optional(),
});

/**
 * Stores the caller's labels for their leased item: one HumanLabel row per
 * chunk, appended (a resubmission after undo adds rows, never edits), and the
 * assignment marked submitted, together. A lease that ran out still counts if
 * nobody took its slot meanwhile; if someone did, the work is refused with
 * CONFLICT rather than exceeding the item's annotator count.
 */
export const submit = queueAnnotateProcedure.input(submitInput).mutation(async ({ ctx, input }) => {
  const me = ctx.user.id;
  await ctx.db.$transaction(async (tx) => {
    // One round trip for the assignment, its item and the queue's settings.
    const [row] = await tx.$queryRaw<
      Array<{ annotatorId: string; itemId: string; queueId: string; segmentationId: string; scheme: AnnotationScheme; annotatorsPerItem: number }>
    >(Prisma.sql`
      SELECT a."annotatorId", a."itemId", i."queueId", i."segmentationId", q.scheme::text AS scheme, q."annotatorsPerItem"
      FROM "AnnotationAssignment" a JOIN "AnnotationItem" i ON i.id = a."itemId" JOIN "AnnotationQueue" q ON q.id = i."queueId"
      WHERE a.id = ${input.assignmentId}`);
    if (!row) throw new TRPCError({ code: "NOT_FOUND", message: `assignment ${input.assignmentId} does not exist` });
    if (row.annotatorId !== me) throw new TRPCError({ code: "FORBIDDEN", message: "this assignment belongs to another annotator" });
    await assertQueueVisible(tx, ctx.user, row.queueId, () => assignmentNotFound(input.assignmentId));
    await lockQueueSlots(tx, row.queueId);
    // Read under the lock: a concurrent submit, skip or undo of the same assignment has finished by now.
    const current = await tx.annotationAssignment.findUniqueOrThrow({ where: { id: input.assignmentId }, select: { status: true, expiresAt: true } });
    if (current.status !== "leased") {
      throw new TRPCError({ code: "CONFLICT", message: `this assignment was already ${current.status}${current.status === "submitted" ? "; undo it to change the labels" : ""}` });
    }
    const now = new Date();
    if (current.expiresAt <= now && (await slotsTakenByOthers(tx, row.itemId, me, now)) >= row.annotatorsPerItem) {
      throw new TRPCError({ code: "CONFLICT", message: "lease expired and another annotator took this item's slot; your labels were not saved. Ask for the next item." });
    }
    const chunks = await tx.chunk.findMany({ where: { segmentationId: row.segmentationId }, orderBy: { index: "asc" }, select: { id: true, index: true } });
    const stored = submissionToStore(row.scheme, chunks, input.labels, input.firstErrorIndex);
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
    await tx.annotationAssignment.update({
      where: { id: input.assignmentId },
      data: { status: "submitted", submittedAt: now, firstErrorIndex: stored.firstErrorIndex },
    });
  }, SLOT_TRANSACTION);
  return { assignment: await loadAssignmentView(ctx.db, input.assignmentId, me) };
});
