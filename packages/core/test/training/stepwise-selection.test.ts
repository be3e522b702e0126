import { describe, expect, it } from "vitest";
import { keepAtMost, locateTaggedChunks, parseChunkTags, segmentByBlankLines, selectResponse, tagChunksInText, type SelectionCandidate } from "../../src";

const candidate = (solutionId: string, correct: boolean, chunkScores: number[] | null): SelectionCandidate => ({ solutionId, correct, chunkScores });

describe("stepwise data selection (paper §4.4)", () => {
  it("keeps the correct response with the highest aggregate score; an incorrect one never wins, however well scored", () => {
    const problem = {
      problemId: "p",
      seedKey: "h",
      candidates: [candidate("wrong", false, [1, 1, 1]), candidate("a", true, [1, 0, 1]), candidate("b", true, [0.9, 0.9, 0.9]), candidate("c", true, [1, 1, 0.2])],
    };
    const mean = selectResponse(problem, { aggregate: "mean", seed: 0 });
    expect(mean).toMatchObject({ kind: "selected", index: 2 });
    expect((mean as { score: number }).score).toBeCloseTo(0.9, 12);
    expect(selectResponse(problem, { aggregate: "min", seed: 0 })).toMatchObject({ kind: "selected", index: 2, score: 0.9 });
    expect(selectResponse(problem, { aggregate: "last", seed: 0 })).toMatchObject({ kind: "selected", index: 1, score: 1 });
    const outcome = selectResponse(problem, { aggregate: "mean", seed: 0 }).scores;
    expect(outcome[0]).toBe(1);
  });

  it("ties go to the earliest candidate", () => {
    const problem = { problemId: "p", seedKey: "h", candidates: [candidate("x", false, [1]), candidate("a", true, [0.5, 1]), candidate("b", true, [1, 0.5])] };
    expect(selectResponse(problem, { aggregate: "mean", seed: 0 })).toMatchObject({ index: 1 });
  });

  it("skips a problem with no correct response, or whose correct responses the judge never judged", () => {
    expect(selectResponse({ problemId: "p", seedKey: "h", candidates: [candidate("a", false, [1])] }, { aggregate: "mean", seed: 0 })).toMatchObject({ kind: "skipped", reason: "no-correct-candidate" });
    expect(selectResponse({ problemId: "p", seedKey: "h", candidates: [] }, { aggregate: "mean", seed: 0 })).toMatchObject({ kind: "skipped", reason: "no-correct-candidate" });
    const unjudged = { problemId: "p", seedKey: "h", candidates: [candidate("a", true, null), candidate("b", false, [1]), candidate("c", true, [])] };
    expect(selectResponse(unjudged, { aggregate: "mean", seed: 0 })).toMatchObject({ kind: "skipped", reason: "no-judged-chunk", scores: [null, 1, null] });
    expect(selectResponse(unjudged, { aggregate: "mean", baseline: "outcome", seed: 0 })).toMatchObject({ kind: "skipped", reason: "no-judged-chunk" });
  });

  it("the outcome baseline draws among the same competitors, seeded per problem, ignoring the scores", () => {
    const candidates = [candidate("w", false, [1]), ...Array.from({ length: 6 }, (_, i) => candidate(`c${i}`, true, [i / 10])), candidate("u", true, null)];
    const draw = (seed: number, seedKey = "h") => selectResponse({ problemId: "p", seedKey, candidates }, { aggregate: "mean", baseline: "outcome", seed });
    expect(draw(3)).toEqual(draw(3));
    const picks = new Set(Array.from({ length: 40 }, (_, seed) => (draw(seed) as { index: number }).index));
    expect(picks.size).toBeGreaterThan(3);
    for (const index of picks) expect(index >= 1 && index <= 6).toBe(true);
    expect(new Set(Array.from({ length: 40 }, (_, i) => (draw(1, `key-${i}`) as { index: number }).index)).size).toBeGreaterThan(3);
  });

  it("keepAtMost draws without replacement, seeded, and keeps the given order", () => {
    const items = ["a", "b", "c", "d", "e", "f", "g"];
    expect(keepAtMost(items, 10, 0, "k")).toEqual(items);
    const kept = keepAtMost(items, 4, 5, "k");
    expect(kept).toHaveLength(4);
    expect(kept).toEqual(items.filter((x) => kept.includes(x)));
    expect(keepAtMost(items, 4, 5, "k")).toEqual(kept);
    expect(new Set(Array.from({ length: 20 }, (_, seed) => keepAtMost(items, 4, seed, "k").join())).size).toBeGreaterThan(5);
  });
});

describe("tagChunksInText", () => {
  it("wraps each chunk where it stands: without the tags the text is the original, and the tags give the chunks back", () => {
    const original = "  First we add: 2 + 3 = 5.\n\nThen double it.\t 5 × 2 = 10.\n\n\nSo \\boxed{10}.\n";
    const chunks = segmentByBlankLines(original);
    const tagged = tagChunksInText(original, chunks);
    expect(tagged.replaceAll("<chunk>", "").replaceAll("</chunk>", "")).toBe(original);
    expect(parseChunkTags(tagged).map((c) => c.text)).toEqual(chunks.map((c) => c.text));
    expect(locateTaggedChunks(original, tagged)).toEqual(chunks);
  });

  it("refuses chunks that are not in-order slices with whitespace between them, and a chunk holding a tag", () => {
    const original = "a b. c d.";
    expect(() => tagChunksInText(original, [{ text: "a b.", startOffset: 0, endOffset: 4 }, { text: "d.", startOffset: 7, endOffset: 9 }])).toThrow(/not whitespace/);
    expect(() => tagChunksInText(original, [{ text: "a b.", startOffset: 0, endOffset: 4 }, { text: "a b.", startOffset: 0, endOffset: 4 }])).toThrow(/not the slice/);
    expect(() => tagChunksInText(original, [{ text: "a c.", startOffset: 0, endOffset: 4 }])).toThrow(/not the slice/);
    expect(() => tagChunksInText(original, [{ text: "a b.", startOffset: 0, endOffset: 4 }])).toThrow(/after the last chunk/);
    const withTag = "x <chunk> y";
    expect(() => tagChunksInText(withTag, [{ text: withTag, startOffset: 0, endOffset: withTag.length }])).toThrow(/chunk tags/);
  });
});
