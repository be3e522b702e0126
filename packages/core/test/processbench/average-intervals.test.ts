import { describe, expect, it } from "vitest";
import { compareCheckpoints } from "../../src/compare/checkpoints";
import { averageCoverage, averageLabel, isPartialAverage, PROCESSBENCH_SUBSETS, withAverageCoverage } from "../../src/processbench/average";
import { processBenchIntervals } from "../../src/processbench/intervals";
import { scorePredictedSolutions, scoreProcessBench, type ProcessBenchGold } from "../../src/processbench/metrics";
import { bootstrapCI } from "../../src/stats/bootstrap";
import { createRng } from "../../src/stats/random";
import { meanOverStrata, stratifiedBootstrapCI } from "../../src/stats/stratified-bootstrap";

describe("what an average is over", () => {
  it("is ProcessBench's average only over exactly its four subsets", () => {
    expect(PROCESSBENCH_SUBSETS).toEqual(["gsm8k", "math", "olympiadbench", "omnimath"]);
    expect(averageCoverage(["omnimath", "gsm8k", "olympiadbench", "math"])).toEqual({ subsets_in_average: ["gsm8k", "math", "olympiadbench", "omnimath"], average_is_partial: false });
    expect(averageLabel(PROCESSBENCH_SUBSETS)).toBe("average (4 of 4 subsets)");
  });

  it("is partial over fewer subsets, over another subset, or over the four and another", () => {
    expect(averageCoverage(["math", "gsm8k"])).toEqual({ subsets_in_average: ["gsm8k", "math"], average_is_partial: true });
    expect(averageLabel(["math", "gsm8k"])).toBe("partial average (2 of 4 subsets: gsm8k, math)");
    expect(averageLabel(["omnimath"])).toBe("partial average (1 of 4 subsets: omnimath)");
    expect(isPartialAverage(["sim"])).toBe(true);
    expect(averageLabel(["sim"])).toBe("partial average (1 subset: sim; 0 of ProcessBench's 4)");
    expect(averageLabel(["sim", "math"])).toBe("partial average (2 subsets: math, sim; 1 of ProcessBench's 4)");
    expect(isPartialAverage([...PROCESSBENCH_SUBSETS, "sim"])).toBe(true);
    // Four subsets, but not ProcessBench's four.
    expect(isPartialAverage(["gsm8k", "math", "olympiadbench", "aime"])).toBe(true);
    expect(averageCoverage([])).toEqual({ subsets_in_average: [], average_is_partial: true });
    expect(averageLabel([])).toBe("partial average (0 of 4 subsets)");
  });

  it("refuses a subset listed twice", () => {
    expect(() => averageCoverage(["math", "math"])).toThrow(/listed twice: math, math/);
  });

  it("is derived for a score stored before it was written, and left alone otherwise", () => {
    const legacy = { subsets: { math: { f1: 0.5 }, gsm8k: { f1: 0.25 } }, average_f1: 0.375, f1_ci95: {} };
    expect(withAverageCoverage(legacy)).toEqual({ ...legacy, subsets_in_average: ["gsm8k", "math"], average_is_partial: true });
    const current = { ...legacy, subsets_in_average: ["gsm8k", "math"], average_is_partial: true };
    expect(withAverageCoverage(current)).toBe(current);
    for (const other of [null, 3, "text", [1], { records: 4 }, { subsets: [1, 2] }]) expect(withAverageCoverage(other)).toBe(other);
  });

  it("is what every score says it averaged", () => {
    const score = scoreProcessBench([{ id: "math-0", label: -1 }, { id: "gsm8k-1", label: 0 }], new Map());
    expect(score).toMatchObject({ subsets_in_average: ["gsm8k", "math"], average_is_partial: true });
  });
});

// Two subsets of different sizes, interleaved as a file would hold them; predictions right about 60 % of the time.
const rng = createRng("intervals");
const gold: ProcessBenchGold[] = Array.from({ length: 90 }, (_, i) => ({ id: `${i % 3 === 0 ? "gsm8k" : "math"}-${i}`, label: rng.nextInt(3) === 0 ? -1 : rng.nextInt(6) }));
const predictions = new Map<string, number | null>();
for (const g of gold) {
  const roll = rng.nextFloat();
  if (roll < 0.05) continue; // missing
  predictions.set(g.id, roll < 0.1 ? null : roll < 0.7 ? g.label : rng.nextInt(7) - 1);
}
const solutions = (subset: string) => gold.filter((g) => g.id.startsWith(`${subset}-`)).map((g) => ({ label: g.label, prediction: predictions.get(g.id) }));

describe("ProcessBench intervals", () => {
  const intervals = processBenchIntervals(gold, predictions, { resamples: 300, seed: 8 });

  it("per subset: bootstrapCI over the subset's solutions in gold order, for each metric", () => {
    for (const subset of ["gsm8k", "math"]) {
      for (const metric of ["f1", "acc_err", "acc_cor"] as const) {
        const ci = bootstrapCI(solutions(subset), (sample) => scorePredictedSolutions(sample)[metric], { resamples: 300, seed: 8 });
        expect(intervals[`${metric}_ci95`][subset], `${subset} ${metric}`).toEqual({ lower: ci.lower, upper: ci.upper });
      }
    }
  });

  it("the average: the stratified bootstrap of the mean subset F1, subsets in sorted order", () => {
    const ci = stratifiedBootstrapCI([solutions("gsm8k"), solutions("math")], meanOverStrata((s) => scorePredictedSolutions(s).f1), { resamples: 300, seed: 8 });
    expect(intervals.average_f1_ci95).toEqual({ lower: ci.lower, upper: ci.upper });
    expect(ci.estimate).toBe(scoreProcessBench(gold, predictions).average_f1);
    expect(ci.lower).toBeLessThan(ci.upper);
  });

  it("are the intervals Compare gives the same run on the same gold", () => {
    const comparison = compareCheckpoints({ gold, runs: [{ id: "run", predictions }, { id: "other", predictions: new Map() }], baselineId: "other", resamples: 300, seed: 8 });
    const run = comparison.runs[0]!;
    for (const subset of ["gsm8k", "math"]) {
      expect(run.bySubset[subset]!.ci).toEqual({ f1: intervals.f1_ci95[subset], acc_err: intervals.acc_err_ci95[subset], acc_cor: intervals.acc_cor_ci95[subset] });
    }
    expect(run.average.ci.f1).toEqual(intervals.average_f1_ci95);
  });

  it("has no average interval without gold, and refuses a gold id twice", () => {
    expect(processBenchIntervals([], predictions, { seed: 0 })).toEqual({ f1_ci95: {}, acc_err_ci95: {}, acc_cor_ci95: {}, average_f1_ci95: null });
    expect(() => processBenchIntervals([gold[0]!, gold[0]!], predictions, { seed: 0 })).toThrow(/appears twice/);
  });
});
