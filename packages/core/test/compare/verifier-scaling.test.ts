import { describe, expect, it } from "vitest";
import { scalingKs, verifierScaling, type ScalingSolution, type StoredJudgeSample } from "../../src/compare/verifier-scaling";

const sample = (verdict: StoredJudgeSample["verdict"], promptTokens: number, completionTokens: number): StoredJudgeSample => ({ verdict, promptTokens, completionTokens });

// Two samples per judged chunk, stored by a run that stopped at the first Negative (tie → Negative).
const solutions: ScalingSolution[] = [
  // Error-free; chunk 1 splits 1–1, so Maj@2 wrongly calls it Negative.
  { id: "s-0", subset: "s", label: -1, chunks: [{ samples: [sample("Positive", 100, 10), sample("Positive", 0, 10)] }, { samples: [sample("Positive", 100, 20), sample("Negative", 0, 20)] }] },
  // Error at chunk 0, found by every sample; chunk 1 never judged.
  { id: "s-1", subset: "s", label: 0, chunks: [{ samples: [sample("Negative", 100, 30), sample("Negative", 0, 30)] }, { samples: [] }] },
  // Error-free; chunk 0 ties (→ Negative, the run stopped), so chunk 1 was never judged.
  { id: "s-2", subset: "s", label: -1, chunks: [{ samples: [sample("Negative", 50, 5), sample("Positive", 0, 5)] }, { samples: [] }] },
];
const options = { draws: 1000, seed: 0, tiePolicy: "Negative", stopAtFirstNegative: true, unparseableChunk: "invalid" } as const;

describe("verifier scaling from stored samples", () => {
  it("draws K = 1, 2, 4, … up to the fewest stored samples, and that K itself", () => {
    expect(scalingKs(8)).toEqual([1, 2, 4, 8]);
    expect(scalingKs(6)).toEqual([1, 2, 4, 6]);
    expect(scalingKs(1)).toEqual([1]);
    expect(scalingKs(0)).toEqual([]);
    expect(verifierScaling(solutions, options).maxK).toBe(2);
  });

  it("at the stored K replays the run: both error-free solutions are called wrong, F1 0", () => {
    const k2 = verifierScaling(solutions, options).points.find((p) => p.k === 2)!;
    // acc_err = 1 (s-1), acc_cor = 0 → F1 0; tokens: s-0 (100+20)+(100+40), s-1 100+60, s-2 50+10 → 480 / 3
    expect(k2).toMatchObject({ f1: 0, f1BySubset: { s: 0 }, f1Range: { min: 0, max: 0 }, tokensPerSolution: 160 });
  });

  it("at K = 1 a lone Positive sample passes a chunk, and unjudged chunks count as Positive and cost nothing", () => {
    const k1 = verifierScaling(solutions, options).points.find((p) => p.k === 1)!;
    // Tokens do not depend on the draw: s-0 (100+10)+(100+20), s-1 100+30, s-2 50+5 (its chunk 1 unjudged) → 415 / 3.
    expect(k1.tokensPerSolution).toBeCloseTo(415 / 3, 12);
    // acc_err = 1; acc_cor = (s-0 right + s-2 right) / 2, each right with probability 1/2:
    // E[F1] = ¼·1 + ½·(2·½/(1+½)) + ¼·0 = ¼ + ⅓ = 7/12.
    expect(k1.f1).toBeCloseTo(7 / 12, 1);
    expect(k1.f1Range).toEqual({ min: 0, max: 1 });
    expect(k1.f1BySubset.s).toBeCloseTo(k1.f1, 12);
  });

  it("is reproducible for a seed", () => {
    const a = verifierScaling(solutions, { ...options, draws: 5, seed: 3 });
    expect(verifierScaling(solutions, { ...options, draws: 5, seed: 3 })).toEqual(a);
  });

  it("a solution the run never judged has no prediction and is scored wrong", () => {
    const unjudged: ScalingSolution = { id: "s-3", subset: "s", label: -1, chunks: [{ samples: [] }] };
    const k2 = verifierScaling([...solutions, unjudged], options).points.find((p) => p.k === 2)!;
    expect(k2.f1).toBe(0);
    expect(k2.tokensPerSolution).toBe(120);
  });
});
