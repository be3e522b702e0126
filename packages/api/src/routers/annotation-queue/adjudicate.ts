import { submissionToStore } from "@stepwiser/core";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { queueManageProcedure } from "../../trpc";
import { finalItemLabels } from "./final-labels";
import { chunkLabelInput } from "./submit";
import { recordAudit } from "@stepwiser/db";

/** A JSON copy, as the row stores it: fields left undefined are dropped. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const adjudicateInput = z.object({
  itemId: z.string().min(1),
  /** Rating scheme: a rating for every chunk. First-error scheme: notes only (ratings follow the pick). */
  labels: z.array(chunkLabelInput.omit({ flagged: true })).max(2000).optional(),
  firstErrorIndex: z.number().int().min(-1).optional(),
});

/**
 * The final word on an item: appends one "adjudication" row per chunk (the
 * latest adjudication outranks every annotator's row), marks the item
 * adjudicated, and audits the final labels before and after, together.
 */
export const adjudicate = queueManageProcedure.input(adjudicateInput).mutation(async ({ ctx, input }) => {
  return ctx.db.$transaction(async (tx) => {
    const item = await tx.annotationItem.findUnique({
      where: { id: input.itemId },
      select: {
        id: true,
        queueId: true,
        adjudicatedAt: true,
        queue: { select: { scheme: true } },
        segmentation: { select: { chunks: { orderBy: { index: "asc" }, select: { id: true, index: true } } } },
      },
    });
    if (!item) throw new TRPCError({ code: "NOT_FOUND", message: `annotation item ${input.itemId} does not exist` });
    const chunks = item.segmentation.chunks;
    const stored = submissionToStore(item.queue.scheme, chunks, input.labels ?? [], input.firstErrorIndex);
    const rowsSelect = { chunkId: true, authorId: true, rating: true, source: true, createdAt: true, assignment: { select: { status: true } } } as const;
    const before = finalItemLabels(chunks, await tx.humanLabel.findMany({ where: { itemId: item.id }, select: rowsSelect }));
    const now = new Date();
    await tx.humanLabel.createMany({
      data: stored.labels.map((label) => ({
        chunkId: label.chunkId,
        authorId: ctx.user.id,
        rating: label.rating,
        flagged: false,
        note: label.note,
        source: "adjudication",
        queueId: item.queueId,
        itemId: item.id,
        createdAt: now,
      })),
    });
    await tx.annotationItem.update({ where: { id: item.id }, data: { adjudicatedAt: now } });
    const after = finalItemLabels(chunks, await tx.humanLabel.findMany({ where: { itemId: item.id }, select: rowsSelect }));
    await recordAudit(tx, ctx.user.id, {
      action: "annotation_item.adjudicated",
      entityType: "AnnotationItem",
      entityId: item.id,
      before: { adjudicatedAt: item.adjudicatedAt?.toISOString() ?? null, final: jsonCopy(before) },
      after: jsonCopy({
        adjudicatedAt: now.toISOString(),
        firstErrorIndex: stored.firstErrorIndex,
        final: after,
        notes: stored.labels.filter((l) => l.note).map((l) => ({ chunkIndex: l.chunkIndex, note: l.note })),
      }),
    });
    return { itemId: item.id, adjudicatedAt: now, firstErrorIndex: stored.firstErrorIndex, final: after };
  });
});
