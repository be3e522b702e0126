import type { RouterInputs, RouterOutputs } from "@stepwiser/api";

export type AssignmentView = NonNullable<RouterOutputs["annotationQueue"]["next"]>;
export type Rating = -1 | 0 | 1;

export interface ChunkDraft {
  rating: Rating | null;
  flagged: boolean;
  note: string;
}

/** What the annotator has entered for the item on screen, before submitting. */
export interface Draft {
  chunks: Record<string, ChunkDraft>;
  /** first_error scheme: the picked chunk, -1 for "no error", null before a pick. */
  firstErrorIndex: number | null;
}

/** A fresh draft, or the annotator's own earlier labels when an undone submission comes back. */
export function initialDraft(view: AssignmentView): Draft {
  const mine = new Map((view.mine?.labels ?? []).map((label) => [label.chunkId, label]));
  const chunks: Record<string, ChunkDraft> = {};
  for (const chunk of view.chunks) {
    const earlier = mine.get(chunk.id);
    chunks[chunk.id] = { rating: (earlier?.rating ?? null) as Rating | null, flagged: earlier?.flagged ?? false, note: earlier?.note ?? "" };
  }
  return { chunks, firstErrorIndex: view.mine?.firstErrorIndex ?? null };
}

/** The first reason the draft cannot be submitted yet, or null when it can. */
export function missingInput(view: AssignmentView, draft: Draft): string | null {
  if (view.queue.scheme === "first_error") {
    return draft.firstErrorIndex === null ? "pick the first wrong chunk (e) or say there is none (0)" : null;
  }
  const unrated = view.chunks.find((chunk) => draft.chunks[chunk.id]?.rating == null);
  return unrated ? `chunk ${unrated.index} has no rating yet` : null;
}

/** The digit keys of the rating scheme: PRM800K's −1 / 0 / +1 on the keys 1, 2, 3. */
export const RATING_KEYS: Record<string, Rating> = { "1": -1, "2": 0, "3": 1 };

export const RATING_NAMES: Record<Rating, string> = { [-1]: "wrong", 0: "neutral", 1: "right" };

/** PRM800K's way of writing a rating: "−1", "0", "+1". */
export function ratingText(rating: Rating): string {
  return rating > 0 ? "+1" : rating < 0 ? "−1" : "0";
}

/** first_error scheme: where a chunk stands relative to the pick (null before a pick). */
export function chunkPick(draft: Draft, chunkIndex: number): "first-error" | "before" | "after" | null {
  const picked = draft.firstErrorIndex;
  if (picked === null) return null;
  if (picked === -1 || chunkIndex < picked) return "before";
  return chunkIndex === picked ? "first-error" : "after";
}

export type Submission = RouterInputs["annotationQueue"]["submit"];

/** The submit call for a complete draft: a label per chunk (notes trimmed, empty ones left out), and the pick under first_error. */
export function submissionOf(view: AssignmentView, draft: Draft): Submission {
  return {
    assignmentId: view.assignmentId,
    labels: view.chunks.map((chunk) => {
      const entry = draft.chunks[chunk.id]!;
      const note = entry.note.trim();
      return { chunkId: chunk.id, rating: view.queue.scheme === "rating" ? entry.rating : null, flagged: entry.flagged, ...(note ? { note } : {}) };
    }),
    ...(view.queue.scheme === "first_error" ? { firstErrorIndex: draft.firstErrorIndex! } : {}),
  };
}
