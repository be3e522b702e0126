import { submissionToStore, type SubmittedChunkLabel } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { finalItemLabels } from "./final-labels";
import { itemNotFound } from "./membership";

/** A JSON copy, as the row stores it: fields left undefined are dropped. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export interface AdjudicateInput {
  itemId: string;
  /** Rating scheme: a rating for every chunk. First-error scheme: notes only (ratings follow the pick). */
  labels?: Omit<SubmittedChunkLabel, "flagged">[];
  firstErrorIndex?: number;
}

/**
 * The final word on an item: appends one "adjudication" row per chunk (the
 * latest adjudication outranks every annotator's row), marks the item
 * adjudicated, and audits the final labels before and after, together.
 */
export async function adjudicateItem({ db, user, input }: ServiceArgs<AdjudicateInput>) {
  return db.$transaction(async (tx) => {
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
    if (!item) throw itemNotFound(input.itemId);
    const chunks = item.segmentation.chunks;
    const stored = submissionToStore(item.queue.scheme, chunks, input.labels ?? [], input.firstErrorIndex);
    const rowsSelect = { chunkId: true, authorId: true, rating: true, source: true, createdAt: true, assignment: { select: { status: true } } } as const;
    const before = finalItemLabels(chunks, await tx.humanLabel.findMany({ where: { itemId: item.id }, select: rowsSelect }));
    const now = new Date();
    await tx.humanLabel.createMany({
      data: stored.labels.map((label) => ({
        chunkId: label.chunkId,
        authorId: user.id,
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
    await recordAudit(tx, user.id, {
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
}
