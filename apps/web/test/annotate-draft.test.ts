import { describe, expect, it } from "vitest";
import { chunkPick, initialDraft, missingInput, submissionOf, type AssignmentView, type Draft } from "../src/app/(app)/annotation-queues/[id]/annotate/draft";

/** The parts of a leased item the draft reads. */
function assignment(scheme: "rating" | "first_error", mine: AssignmentView["mine"] = null): AssignmentView {
  return {
    assignmentId: "as-1",
    queue: { scheme },
    chunks: [0, 1, 2].map((index) => ({ id: `c${index}`, index })),
    mine,
  } as unknown as AssignmentView;
}

describe("annotate draft", () => {
  it("starts empty, or from the annotator's own labels when an undone submission comes back", () => {
    expect(initialDraft(assignment("rating"))).toEqual({
      chunks: { c0: { rating: null, flagged: false, note: "" }, c1: { rating: null, flagged: false, note: "" }, c2: { rating: null, flagged: false, note: "" } },
      firstErrorIndex: null,
    });
    const reopened = assignment("rating", { labels: [{ chunkId: "c1", rating: -1, flagged: true, note: "2x = 5 is wrong" }], firstErrorIndex: null } as unknown as AssignmentView["mine"]);
    expect(initialDraft(reopened).chunks.c1).toEqual({ rating: -1, flagged: true, note: "2x = 5 is wrong" });
  });

  it("names the first thing missing before a submit", () => {
    const view = assignment("rating");
    const draft = initialDraft(view);
    expect(missingInput(view, draft)).toBe("chunk 0 has no rating yet");
    const rated: Draft = { ...draft, chunks: { c0: { ...draft.chunks.c0!, rating: 1 }, c1: { ...draft.chunks.c1!, rating: 0 }, c2: draft.chunks.c2! } };
    expect(missingInput(view, rated)).toBe("chunk 2 has no rating yet");
    expect(missingInput(assignment("first_error"), initialDraft(assignment("first_error")))).toBe("pick the first wrong chunk (e) or say there is none (0)");
  });

  it("places each chunk against the first-error pick", () => {
    const draft = (firstErrorIndex: number | null): Draft => ({ chunks: {}, firstErrorIndex });
    expect([0, 1, 2].map((i) => chunkPick(draft(1), i))).toEqual(["before", "first-error", "after"]);
    expect([0, 1, 2].map((i) => chunkPick(draft(-1), i))).toEqual(["before", "before", "before"]);
    expect([0, 1, 2].map((i) => chunkPick(draft(null), i))).toEqual([null, null, null]);
  });

  it("submits a label per chunk with trimmed notes, and the pick only under first_error", () => {
    const view = assignment("rating");
    const draft: Draft = {
      chunks: { c0: { rating: 1, flagged: false, note: "  " }, c1: { rating: -1, flagged: true, note: " wrong sign \n" }, c2: { rating: 0, flagged: false, note: "" } },
      firstErrorIndex: null,
    };
    expect(submissionOf(view, draft)).toEqual({
      assignmentId: "as-1",
      labels: [
        { chunkId: "c0", rating: 1, flagged: false },
        { chunkId: "c1", rating: -1, flagged: true, note: "wrong sign" },
        { chunkId: "c2", rating: 0, flagged: false },
      ],
    });
    const firstError = submissionOf(assignment("first_error"), { ...draft, firstErrorIndex: 1 });
    expect(firstError.firstErrorIndex).toBe(1);
    expect(firstError.labels.map((l) => l.rating)).toEqual([null, null, null]);
  });
});
