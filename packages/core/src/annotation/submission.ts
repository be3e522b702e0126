import { InputError } from "../errors/input-error";
import { firstErrorFromRatings, ratingsFromFirstError, type HumanRating } from "./human-label";

/** How a queue asks for labels: a rating per chunk, or one first-error pick per solution. */
export const ANNOTATION_SCHEMES = ["rating", "first_error"] as const;
export type AnnotationSchemeName = (typeof ANNOTATION_SCHEMES)[number];

/** One chunk's label as an annotator (or adjudicator) sends it. */
export interface SubmittedChunkLabel {
  chunkId: string;
  rating: HumanRating | null;
  flagged?: boolean;
  note?: string | null;
}

/** What one submission stores for one chunk: a full row per chunk, in chunk order. */
export interface ChunkLabelToStore {
  chunkId: string;
  chunkIndex: number;
  rating: HumanRating | null;
  flagged: boolean;
  note: string | null;
}

export interface SubmissionToStore {
  labels: ChunkLabelToStore[];
  /** The solution-level reading: the pick (first_error) or the first -1 (rating); -1 = no error. */
  firstErrorIndex: number;
}

/**
 * Checks a submission against its solution's chunks and the queue's scheme and
 * returns one row per chunk. The rating scheme needs a rating on every chunk
 * (a gap would read as "not wrong" downstream, so it is refused and named); the
 * first-error scheme derives the ratings from the pick, and takes only flags
 * and notes from `labels`.
 */
export function submissionToStore(
  scheme: AnnotationSchemeName,
  chunks: readonly { id: string; index: number }[],
  labels: readonly SubmittedChunkLabel[],
  firstErrorIndex?: number | null,
): SubmissionToStore {
  const ordered = [...chunks].sort((a, b) => a.index - b.index);
  const indexOf = new Map(ordered.map((chunk) => [chunk.id, chunk.index]));
  const byChunk = new Map<string, SubmittedChunkLabel>();
  labels.forEach((label, i) => {
    const index = indexOf.get(label.chunkId);
    if (index === undefined) throw new InputError(`chunk ${label.chunkId} is not a chunk of this solution`, { field: `labels.${i}.chunkId` });
    if (byChunk.has(label.chunkId)) throw new InputError(`chunk ${index} is labelled twice`, { field: `labels.${i}.chunkId` });
    byChunk.set(label.chunkId, label);
  });

  let ratings: (HumanRating | null)[];
  if (scheme === "first_error") {
    if (firstErrorIndex === undefined || firstErrorIndex === null) {
      throw new InputError("the first-error scheme needs firstErrorIndex: the first wrong chunk, or -1 when none is wrong", { field: "firstErrorIndex" });
    }
    if (!Number.isInteger(firstErrorIndex) || firstErrorIndex < -1 || firstErrorIndex >= ordered.length) {
      throw new InputError(`firstErrorIndex must be -1 (no error) or a chunk index from 0 to ${ordered.length - 1}, got ${firstErrorIndex}`, { field: "firstErrorIndex" });
    }
    ratings = ratingsFromFirstError(firstErrorIndex, ordered.length);
  } else {
    const missing = ordered.filter((chunk) => (byChunk.get(chunk.id)?.rating ?? null) === null).map((chunk) => chunk.index);
    if (missing.length === 1) throw new InputError(`chunk ${missing[0]} has no rating; rate every chunk -1, 0 or +1`, { field: "labels" });
    if (missing.length > 1) throw new InputError(`chunks ${missing.join(", ")} have no rating; rate every chunk -1, 0 or +1`, { field: "labels" });
    ratings = ordered.map((chunk) => byChunk.get(chunk.id)!.rating);
  }
  return {
    labels: ordered.map((chunk, i) => {
      const sent = byChunk.get(chunk.id);
      return { chunkId: chunk.id, chunkIndex: chunk.index, rating: ratings[i]!, flagged: sent?.flagged ?? false, note: sent?.note?.trim() ? sent.note : null };
    }),
    // Chunk indices are 0..n-1 (one segmentation), so positions and indices coincide.
    firstErrorIndex: scheme === "first_error" ? firstErrorIndex! : firstErrorFromRatings(ratings),
  };
}
