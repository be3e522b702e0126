import { describe, expect, it } from "vitest";
import { confidenceCharts, confidenceSummary, type ConfidenceHistogramInput } from "../src/components/label-confidence/confidence-charts";

const histogram = (rule: string, paramsKey: string, counts: number[], noConfidence = 0): ConfidenceHistogramInput => ({
  rule,
  paramsKey,
  bins: counts.map((count, i) => ({ from: i / 10, to: (i + 1) / 10, count })),
  noConfidence,
  labels: counts.reduce((n, c) => n + c, 0) + noConfidence,
});

describe("label confidence charts", () => {
  it("one chart per rule in the order given: ten tenths, then a separate 'none' bar only when some label has no confidence", () => {
    const charts = confidenceCharts([
      histogram("rel_ratio", '{"gamma":0.7}', [0, 0, 0, 1, 2, 0, 1, 1, 3, 12], 2),
      histogram("abs_q", '{"evidence":"own-prefix"}', [1, 0, 0, 0, 0, 0, 0, 0, 0, 9]),
    ]);
    expect(charts.map((c) => [c.key, c.name, c.labels, c.noConfidence])).toEqual([
      ['rel_ratio|{"gamma":0.7}', "rel-ratio(gamma=0.7)", 22, 2],
      ['abs_q|{"evidence":"own-prefix"}', "abs-q(evidence=own-prefix)", 10, 0],
    ]);
    expect(charts[0]!.bars.map((b) => b.bin)).toEqual(["0.0–0.1", "0.1–0.2", "0.2–0.3", "0.3–0.4", "0.4–0.5", "0.5–0.6", "0.6–0.7", "0.7–0.8", "0.8–0.9", "0.9–1.0", "none"]);
    expect(charts[0]!.bars.map((b) => b.labels)).toEqual([0, 0, 0, 1, 2, 0, 1, 1, 3, 12, 0]);
    // The labels without a confidence are a series of their own, zero on every tenth.
    expect(charts[0]!.bars.map((b) => b.none)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    expect(charts[1]!.bars).toHaveLength(10);
    expect(charts[1]!.bars.every((b) => b.none === 0)).toBe(true);
  });

  it("summarises each chart in words: how many labels, how many sure, how many below one half, the fullest bin, those without a confidence", () => {
    expect(confidenceSummary(histogram("rel_ratio", '{"gamma":0.7}', [0, 0, 0, 1, 2, 0, 1, 1, 3, 12], 2))).toBe(
      "rel-ratio(gamma=0.7): 22 labels. 12 labels (60.0 % of those with a confidence) at 0.9 or more, 3 labels (15.0 %) below 0.5, where the other label is the likelier; most in 0.9–1.0 (12). 2 labels without a confidence.",
    );
    // Ties: the lowest of the fullest bins; singular nouns for one.
    expect(confidenceSummary(histogram("abs_q", '{"evidence":"own-prefix"}', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0], 1))).toBe(
      "abs-q(evidence=own-prefix): 3 labels. 0 labels (0.0 % of those with a confidence) at 0.9 or more, 1 label (50.0 %) below 0.5, where the other label is the likelier; most in 0.0–0.1 (1). 1 label without a confidence.",
    );
    // Labels stored without any confidence (imported, or stored before confidences existed).
    expect(confidenceSummary(histogram("abs_q", '{"evidence":"own-prefix"}', new Array(10).fill(0), 4))).toBe("abs-q(evidence=own-prefix): 4 labels. None has a confidence.");
    // Thousands are grouped.
    expect(confidenceSummary(histogram("rel_effective", '{"alpha":0.8,"n":4}', [0, 0, 0, 0, 0, 0, 0, 0, 0, 12345]))).toMatch(/^rel-effective\(alpha=0\.8,n=4\): 12,345 labels\. 12,345 labels \(100\.0 %/);
  });

  it("no histograms, no charts", () => {
    expect(confidenceCharts([])).toEqual([]);
  });
});
