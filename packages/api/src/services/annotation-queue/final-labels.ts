import { resolveHumanLabel, type FinalHumanLabel } from "@stepwiser/core";
import type { AssignmentStatus } from "@stepwiser/db";

export interface ItemLabelRow {
  chunkId: string;
  authorId: string;
  rating: number | null;
  source: string;
  createdAt: Date;
  assignment: { status: AssignmentStatus } | null;
}

export type FinalChunkLabel = { chunkId: string; chunkIndex: number } & FinalHumanLabel;

/**
 * The final human label of each chunk of an item. Counted: adjudications, and
 * the rows of submitted assignments; the rows of an undone assignment wait
 * until it is submitted again, as in the agreement numbers.
 */
export function finalItemLabels(chunks: readonly { id: string; index: number }[], rows: readonly ItemLabelRow[]): FinalChunkLabel[] {
  const counted = rows.filter((row) => row.source === "adjudication" || row.assignment === null || row.assignment.status === "submitted");
  return chunks.map((chunk) => ({ chunkId: chunk.id, chunkIndex: chunk.index, ...resolveHumanLabel(counted.filter((row) => row.chunkId === chunk.id)) }));
}
