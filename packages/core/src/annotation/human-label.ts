import type { Label } from "../labels/label";

/** PRM800K per-step rating: -1 the step is wrong, 0 neutral (unhelpful but not wrong), +1 right. */
export const HUMAN_RATINGS = [-1, 0, 1] as const;
export type HumanRating = (typeof HUMAN_RATINGS)[number];

export function isHumanRating(value: unknown): value is HumanRating {
  return value === -1 || value === 0 || value === 1;
}

/**
 * A rating as the binary chunk label judges and Monte-Carlo rules produce.
 * Neutral counts as Positive: in PRM800K only a -1 step is an error, and the
 * first -1 is the solution's first error.
 */
export function ratingToLabel(rating: HumanRating): Label {
  return rating === -1 ? "Negative" : "Positive";
}

/**
 * The first-error scheme as per-chunk ratings: chunks before the pick are
 * right, the pick is wrong, chunks after it are unrated (null). -1 = no error:
 * every chunk right.
 */
export function ratingsFromFirstError(firstErrorIndex: number, chunkCount: number): (HumanRating | null)[] {
  if (!Number.isInteger(firstErrorIndex) || firstErrorIndex < -1 || firstErrorIndex >= chunkCount) {
    throw new RangeError(`first error must be -1 (none) or a chunk index below ${chunkCount}, got ${firstErrorIndex}`);
  }
  return Array.from({ length: chunkCount }, (_, i) => (firstErrorIndex === -1 || i < firstErrorIndex ? 1 : i === firstErrorIndex ? -1 : null));
}

/** Index of the first -1, or -1 when none: the solution-level reading of per-chunk ratings. */
export function firstErrorFromRatings(ratings: readonly (HumanRating | null)[]): number {
  return ratings.indexOf(-1);
}

/** One stored human label of one chunk, as the resolution below needs it. */
export interface HumanLabelRow {
  authorId: string;
  rating: number | null;
  source: string;
  createdAt: Date;
}

export type FinalHumanLabel =
  | { status: "adjudicated"; rating: HumanRating | null }
  | { status: "agreed"; rating: HumanRating | null; annotators: number }
  | { status: "disputed"; ratings: { authorId: string; rating: HumanRating | null }[] }
  | { status: "unlabelled" };

/**
 * The human label of one chunk from its append-only rows: the latest
 * adjudication wins; otherwise each annotator's latest row counts, and the
 * label is theirs when they all agree; when they differ it is disputed until an
 * adjudicator decides. Rows are in any order.
 */
export function resolveHumanLabel(rows: readonly HumanLabelRow[]): FinalHumanLabel {
  const latestBy = (source: (row: HumanLabelRow) => boolean) => {
    const latest = new Map<string, HumanLabelRow>();
    for (const row of rows) {
      if (!source(row)) continue;
      const seen = latest.get(row.authorId);
      if (!seen || row.createdAt >= seen.createdAt) latest.set(row.authorId, row);
    }
    return [...latest.values()];
  };
  const adjudications = latestBy((row) => row.source === "adjudication");
  if (adjudications.length) {
    const last = adjudications.reduce((a, b) => (b.createdAt >= a.createdAt ? b : a));
    return { status: "adjudicated", rating: asRating(last.rating) };
  }
  const current = latestBy((row) => row.source !== "adjudication").sort((a, b) => a.authorId.localeCompare(b.authorId));
  if (current.length === 0) return { status: "unlabelled" };
  const first = asRating(current[0]!.rating);
  if (current.every((row) => asRating(row.rating) === first)) return { status: "agreed", rating: first, annotators: current.length };
  return { status: "disputed", ratings: current.map((row) => ({ authorId: row.authorId, rating: asRating(row.rating) })) };
}

function asRating(value: number | null): HumanRating | null {
  if (value === null) return null;
  if (!isHumanRating(value)) throw new RangeError(`a human rating is -1, 0 or 1, got ${value}`);
  return value;
}
