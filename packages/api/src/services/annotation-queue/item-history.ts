import type { ServiceArgs } from "../args";
import { adjudicationContext } from "./adjudication-context";
import { finalItemLabels } from "./final-labels";
import { itemNotFound } from "./membership";

/**
 * Everything that happened to one item: who held it when, every label row ever
 * written (oldest first), the final labels, and what the model side said of
 * each chunk (Monte-Carlo labels with confidence, Q-values, judge verdicts).
 */
export async function loadItemHistory({ db, input }: ServiceArgs<{ itemId: string }>) {
  const item = await db.annotationItem.findUnique({
    where: { id: input.itemId },
    select: {
      id: true,
      queueId: true,
      position: true,
      solutionId: true,
      adjudicatedAt: true,
      solution: { select: { externalId: true } },
      segmentationId: true,
      queue: { select: { scheme: true, annotatorsPerItem: true, datasetId: true, annotateRunId: true, labelRule: true, judgeRunId: true } },
      segmentation: { select: { chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } } } },
      assignments: {
        orderBy: [{ leasedAt: "asc" }, { id: "asc" }],
        select: { id: true, annotatorId: true, annotator: { select: { name: true, email: true } }, status: true, leasedAt: true, expiresAt: true, submittedAt: true, firstErrorIndex: true },
      },
    },
  });
  if (!item) throw itemNotFound(input.itemId);
  const rows = await db.humanLabel.findMany({
    where: { itemId: item.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: {
      id: true,
      chunkId: true,
      chunk: { select: { index: true } },
      authorId: true,
      author: { select: { name: true, email: true } },
      rating: true,
      flagged: true,
      note: true,
      source: true,
      createdAt: true,
      assignmentId: true,
      assignment: { select: { status: true } },
    },
  });
  const chunks = item.segmentation.chunks;
  const model = await adjudicationContext(db, item.queue, item.segmentationId, chunks);
  return {
    item: {
      id: item.id,
      queueId: item.queueId,
      scheme: item.queue.scheme,
      annotatorsPerItem: item.queue.annotatorsPerItem,
      position: item.position,
      solutionId: item.solutionId,
      externalId: item.solution.externalId,
      adjudicatedAt: item.adjudicatedAt,
    },
    chunks,
    assignments: item.assignments.map(({ annotator, ...a }) => ({ ...a, name: annotator.name, email: annotator.email })),
    labels: rows.map((row) => ({
      id: row.id,
      chunkId: row.chunkId,
      chunkIndex: row.chunk.index,
      authorId: row.authorId,
      authorName: row.author.name,
      authorEmail: row.author.email,
      rating: row.rating,
      flagged: row.flagged,
      note: row.note,
      source: row.source,
      createdAt: row.createdAt,
      assignmentId: row.assignmentId,
    })),
    final: finalItemLabels(chunks, rows),
    /** The model's side, for the adjudicator: the annotate run's labels and Q-values, and judge runs' verdicts. */
    model,
  };
}
