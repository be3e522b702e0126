import { describe, expect, it } from "vitest";
import { approximateTokenCount, segmentationStats, segmentationStatsByMethod, summarize } from "../../src/chunks";

describe("summarize", () => {
  it("gives mean, median, min and max, with the median of an even count averaged", () => {
    expect(summarize([3, 1, 2])).toEqual({ mean: 2, median: 2, min: 1, max: 3 });
    expect(summarize([4, 1, 2, 10])).toEqual({ mean: 4.25, median: 3, min: 1, max: 10 });
    expect(summarize([])).toEqual({ mean: null, median: null, min: null, max: null });
  });
});

describe("approximateTokenCount", () => {
  it("counts letter runs, digit groups of three and single symbols", () => {
    expect(approximateTokenCount("")).toBe(0);
    expect(approximateTokenCount("The sum is")).toBe(3);
    expect(approximateTokenCount("x^2 + 12345 = y.")).toBe(9); // x ^ 2 + 123|45 = y .
    expect(approximateTokenCount("\\frac{1}{2}")).toBe(8);
    expect(approximateTokenCount("déjà vu")).toBe(2);
  });
});

describe("segmentationStats", () => {
  it("summarises chunks per solution, characters and tokens per chunk, and the share of one-line chunks", () => {
    const stats = segmentationStats([
      ["one two", "three\nfour"],
      [{ text: "  five  " }],
      ["√2 ≈ 1.414", "a", "b\nc"],
    ]);
    expect(stats.solutions).toBe(3);
    expect(stats.chunks).toBe(6);
    expect(stats.chunksPerSolution).toEqual({ mean: 2, median: 2, min: 1, max: 3 });
    // Trimmed code points: 7, 10, 4, 10, 1, 3.
    expect(stats.charactersPerChunk).toEqual({ mean: 35 / 6, median: 5.5, min: 1, max: 10 });
    expect(stats.oneLineChunkShare).toBe(4 / 6);
    expect(stats.tokensPerChunk.min).toBe(1);
  });

  it("uses an injected token counter", () => {
    const stats = segmentationStats([["abc", "defgh"]], { countTokens: (text) => text.length * 10 });
    expect(stats.tokensPerChunk).toEqual({ mean: 40, median: 40, min: 30, max: 50 });
  });

  it("reports nulls rather than NaN when there is nothing to measure", () => {
    expect(segmentationStats([])).toEqual({
      solutions: 0,
      chunks: 0,
      chunksPerSolution: { mean: null, median: null, min: null, max: null },
      charactersPerChunk: { mean: null, median: null, min: null, max: null },
      tokensPerChunk: { mean: null, median: null, min: null, max: null },
      oneLineChunkShare: null,
    });
    expect(segmentationStats([[]]).chunksPerSolution).toEqual({ mean: 0, median: 0, min: 0, max: 0 });
  });

  it("compares methods side by side, one row per method in the order given", () => {
    const rows = segmentationStatsByMethod({ "blank-line": [["a", "b"], ["c"]], "llm-segmenter": [["a b c"]] });
    expect(rows.map((row) => [row.method, row.chunks, row.chunksPerSolution.mean])).toEqual([
      ["blank-line", 3, 1.5],
      ["llm-segmenter", 1, 1],
    ]);
  });
});
