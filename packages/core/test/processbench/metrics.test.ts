import { describe, expect, it } from "vitest";
import { parseCriticPrediction } from "../../src/processbench/critic-output";
import { scoreProcessBench, type ProcessBenchGold } from "../../src/processbench/metrics";

// A hand-checked slice: gsm8k has 3 erroneous + 2 correct samples, math 2 + 1.
const gold: ProcessBenchGold[] = [
  { id: "gsm8k-0", label: 2 },
  { id: "gsm8k-1", label: 0 },
  { id: "gsm8k-2", label: 4 },
  { id: "gsm8k-3", label: -1 },
  { id: "gsm8k-4", label: -1 },
  { id: "math-0", label: 1 },
  { id: "math-1", label: 3 },
  { id: "math-2", label: -1 },
];

describe("ProcessBench scoring", () => {
  it("computes acc_err, acc_cor and F1 per subset and their unweighted mean", () => {
    const predictions = new Map<string, number | null>([
      ["gsm8k-0", 2], // hit
      ["gsm8k-1", 1], // miss
      ["gsm8k-2", null], // unparseable → wrong
      ["gsm8k-3", -1], // hit
      ["gsm8k-4", 3], // miss
      ["math-0", 1], // hit
      ["math-1", 3], // hit
      // math-2 missing → wrong
      ["olympiad-9", 0], // not in gold → ignored
    ]);
    const score = scoreProcessBench(gold, predictions);
    // gsm8k: acc_err = 1/3, acc_cor = 1/2, F1 = 2·(1/3)(1/2)/(1/3+1/2) = (1/3)/(5/6) = 0.4
    expect(score.subsets.gsm8k).toEqual({ n: 5, n_error: 3, n_correct: 2, acc_err: 1 / 3, acc_cor: 0.5, f1: expect.closeTo(0.4, 12) });
    // math: acc_err = 1, acc_cor = 0 → F1 = 0
    expect(score.subsets.math).toEqual({ n: 3, n_error: 2, n_correct: 1, acc_err: 1, acc_cor: 0, f1: 0 });
    expect(score.average_f1).toBeCloseTo(0.2, 12);
    expect(score.missing).toEqual(["math-2"]);
    expect(score.unknown).toEqual(["olympiad-9"]);
    expect(score.unparseable).toBe(1);
  });

  it("a perfect predictor scores 1 everywhere", () => {
    const score = scoreProcessBench(gold, new Map(gold.map((g) => [g.id, g.label])));
    expect(Object.values(score.subsets).map((s) => s.f1)).toEqual([1, 1]);
    expect(score.average_f1).toBe(1);
  });

  it("always predicting -1 gets acc_cor = 1, acc_err = 0, F1 = 0", () => {
    const score = scoreProcessBench(gold, new Map(gold.map((g) => [g.id, -1])));
    expect(score.subsets.gsm8k).toMatchObject({ acc_err: 0, acc_cor: 1, f1: 0 });
  });

  it("rejects duplicate gold ids", () => {
    expect(() => scoreProcessBench([gold[0]!, gold[0]!], new Map())).toThrow(/gsm8k-0 appears twice/);
  });
});

describe("critic output", () => {
  it("reads the boxed index or -1", () => {
    expect(parseCriticPrediction("... the earliest error is in paragraph \\boxed{3}")).toBe(3);
    expect(parseCriticPrediction("\\boxed{-1}")).toBe(-1);
    expect(parseCriticPrediction("\\boxed{\\text{2}}")).toBe(2);
    expect(parseCriticPrediction("no box")).toBeNull();
    expect(parseCriticPrediction("\\boxed{two}")).toBeNull();
    expect(parseCriticPrediction("\\boxed{-2}")).toBeNull();
  });
});
