import { describe, expect, it } from "vitest";
import { InputError, submissionToStore } from "../../src";

const chunks = [0, 1, 2, 3].map((index) => ({ id: `c${index}`, index }));

describe("checking a submission against its solution", () => {
  it("rating scheme: every chunk needs a rating, and the error names the missing chunk", () => {
    const labels = [
      { chunkId: "c0", rating: 1 as const },
      { chunkId: "c1", rating: 0 as const },
      { chunkId: "c3", rating: -1 as const },
    ];
    expect(() => submissionToStore("rating", chunks, labels)).toThrow(/chunk 2 has no rating/);
    expect(() => submissionToStore("rating", chunks, [{ chunkId: "c0", rating: 1 }, { chunkId: "c2", rating: null }])).toThrow(/chunks 1, 2, 3 have no rating/);
    expect(() => submissionToStore("rating", chunks, labels)).toThrow(InputError);
  });

  it("rating scheme: stores one row per chunk in chunk order and reads the first -1 as the first error", () => {
    const stored = submissionToStore("rating", chunks, [
      { chunkId: "c3", rating: 1 },
      { chunkId: "c1", rating: 0, flagged: true, note: "unclear" },
      { chunkId: "c0", rating: 1 },
      { chunkId: "c2", rating: -1, note: "  " },
    ]);
    expect(stored.firstErrorIndex).toBe(2);
    expect(stored.labels).toEqual([
      { chunkId: "c0", chunkIndex: 0, rating: 1, flagged: false, note: null },
      { chunkId: "c1", chunkIndex: 1, rating: 0, flagged: true, note: "unclear" },
      { chunkId: "c2", chunkIndex: 2, rating: -1, flagged: false, note: null },
      { chunkId: "c3", chunkIndex: 3, rating: 1, flagged: false, note: null },
    ]);
  });

  it("first-error scheme: ratings follow the pick; flags and notes come from the labels", () => {
    const stored = submissionToStore("first_error", chunks, [{ chunkId: "c3", rating: null, flagged: true, note: "typo" }, { chunkId: "c0", rating: -1 }], 1);
    expect(stored.firstErrorIndex).toBe(1);
    expect(stored.labels.map((l) => l.rating)).toEqual([1, -1, null, null]);
    expect(stored.labels[3]).toMatchObject({ flagged: true, note: "typo" });
    expect(submissionToStore("first_error", chunks, [], -1).labels.map((l) => l.rating)).toEqual([1, 1, 1, 1]);
    expect(() => submissionToStore("first_error", chunks, [])).toThrow(/needs firstErrorIndex/);
    expect(() => submissionToStore("first_error", chunks, [], 4)).toThrow(/from 0 to 3, got 4/);
  });

  it("refuses chunks of another solution and a chunk labelled twice", () => {
    expect(() => submissionToStore("rating", chunks, [{ chunkId: "elsewhere", rating: 1 }])).toThrow(/not a chunk of this solution/);
    expect(() => submissionToStore("first_error", chunks, [{ chunkId: "c1", rating: 1 }, { chunkId: "c1", rating: 1 }], 0)).toThrow(/chunk 1 is labelled twice/);
  });
});
