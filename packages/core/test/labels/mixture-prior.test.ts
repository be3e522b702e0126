import { describe, expect, it } from "vitest";
import {
  applyLabelRule,
  fitMixturePrior,
  labelConfidenceOptionsSchema,
  labelConfidences,
  mixturePosteriorParts,
  qPosterior,
  truePositiveProbability,
  type LabelRule,
  type MixturePrior,
} from "../../src/labels";
import { createRng, logBeta, type Rng } from "../../src/stats";

/** Beta(a, b) with integer a, b: the a-th smallest of a + b − 1 uniforms. */
const betaDraw = (rng: Rng, a: number, b: number) =>
  Array.from({ length: a + b - 1 }, () => rng.nextFloat())
    .sort((x, y) => x - y)
    .at(a - 1)!;

function drawQ(rng: Rng, prior: { zero: number; one: number; a: number; b: number }): number {
  const u = rng.nextFloat();
  if (u < prior.zero) return 0;
  if (u < prior.zero + prior.one) return 1;
  return betaDraw(rng, prior.a, prior.b);
}

const binomial = (rng: Rng, m: number, q: number) => Array.from({ length: m }, () => rng.nextFloat() < q).filter(Boolean).length;

describe("mixture prior", () => {
  it("posterior weights: a point mass keeps weight only where the counts allow it", () => {
    const prior: MixturePrior = { zero: 0.3, one: 0.2, a: 2, b: 3 };
    const zero = mixturePosteriorParts(prior, { correct: 0, rollouts: 16 });
    const continuousLikelihood = 0.5 * Math.exp(logBeta(2, 19) - logBeta(2, 3));
    expect(zero.find((p) => p.at === 0)!.weight).toBeCloseTo(0.3 / (0.3 + continuousLikelihood), 12);
    expect(zero.find((p) => p.at === 1)).toBeUndefined();
    const middle = mixturePosteriorParts(prior, { correct: 5, rollouts: 16 });
    expect(middle).toEqual([{ weight: 1, a: 7, b: 14 }]);
    // One failure rules out Q = 1, one success rules out Q = 0.
    expect(mixturePosteriorParts(prior, { correct: 15, rollouts: 16 }).some((p) => p.at !== undefined)).toBe(false);
    expect(qPosterior({ correct: 5, rollouts: 16 }, "mixture", prior)).toEqual({ kind: "beta", a: 7, b: 14 });
  });

  it("fits its parameters back from counts drawn from it", () => {
    const truth = { zero: 0.3, one: 0.2, a: 2, b: 3 };
    const rng = createRng("mixture-fit");
    const counts = Array.from({ length: 20_000 }, () => ({ correct: binomial(rng, 16, drawQ(rng, truth)), rollouts: 16 }));
    const fitted = fitMixturePrior(counts);
    expect(fitted.prefixes).toBe(20_000);
    expect(fitted.zero).toBeGreaterThan(0.27);
    expect(fitted.zero).toBeLessThan(0.33);
    expect(fitted.one).toBeGreaterThan(0.17);
    expect(fitted.one).toBeLessThan(0.23);
    expect(fitted.a / (fitted.a + fitted.b)).toBeCloseTo(0.4, 1);
    expect(fitted.a).toBeGreaterThan(1.4);
    expect(fitted.a).toBeLessThan(2.8);
    // Deterministic.
    expect(fitMixturePrior(counts)).toEqual(fitted);
    // Counts with no zero and no full success give the point masses (almost) nothing.
    const middleOnly = Array.from({ length: 2000 }, (_, i) => ({ correct: 4 + (i % 9), rollouts: 16 }));
    const fit = fitMixturePrior(middleOnly);
    expect(fit.zero + fit.one).toBeLessThan(1e-6);
    expect(() => fitMixturePrior([])).toThrow(/at least one sampled prefix/);
    expect(() => fitMixturePrior([{ correct: 3, rollouts: 2 }])).toThrow(/s of m/);
  });

  it("is calibrated on a population drawn from it: in every decile with 200+ labels, mean confidence within 4 points of agreement", () => {
    const prior: MixturePrior = { zero: 0.25, one: 0.25, a: 2, b: 2 };
    const rules: LabelRule[] = [
      { rule: "rel-ratio", gamma: 0.7 },
      { rule: "rel-effective", alpha: 0.8, n: 4 },
      { rule: "abs-q", evidence: "own-prefix" },
    ];
    const rng = createRng("mixture-calibration");
    const options = labelConfidenceOptionsSchema.parse({ prior: "mixture", mixture: prior });
    for (const rule of rules) {
      const bins = Array.from({ length: 10 }, () => ({ n: 0, confidence: 0, agree: 0 }));
      for (let i = 0; i < 6000; i++) {
        const q = [drawQ(rng, prior), drawQ(rng, prior)];
        const counts = q.map((value) => ({ correct: binomial(rng, 8, value), rollouts: 8 }));
        const estimated = applyLabelRule(rule, counts[0]!.correct / 8, [counts[1]!.correct / 8]);
        const truth = applyLabelRule(rule, q[0]!, [q[1]!]);
        const confidence = labelConfidences(rule, estimated, counts, options)[0]!;
        const bin = bins[Math.min(9, Math.floor(confidence * 10))]!;
        bin.n += 1;
        bin.confidence += confidence;
        if (estimated[0] === truth[0]) bin.agree += 1;
      }
      for (const [i, bin] of bins.entries()) {
        if (bin.n < 200) continue;
        expect(Math.abs(bin.confidence / bin.n - bin.agree / bin.n), `${rule.rule} decile ${i}: ${bin.n} labels`).toBeLessThan(0.04);
      }
    }
  });

  it("options: mixture needs its parameters, and they are refused with another prior", () => {
    expect(labelConfidenceOptionsSchema.safeParse({ prior: "mixture" }).error!.issues[0]!.path).toEqual(["mixture"]);
    expect(labelConfidenceOptionsSchema.safeParse({ prior: "jeffreys", mixture: { zero: 0.1, one: 0.1, a: 1, b: 1 } }).success).toBe(false);
    expect(labelConfidenceOptionsSchema.safeParse({ prior: "mixture", mixture: { zero: 0.6, one: 0.5, a: 1, b: 1 } }).success).toBe(false);
    expect(() => qPosterior({ correct: 1, rollouts: 2 }, "mixture")).toThrow(/needs its parameters/);
  });

  it("a prefix with no success under a prior with mass at 0 can be a sure Negative", () => {
    const prior: MixturePrior = { zero: 0.4, one: 0.1, a: 2, b: 2 };
    const none = qPosterior({ correct: 0, rollouts: 16 }, "mixture", prior);
    const own = { rule: "abs-q", evidence: "own-prefix" } as const;
    expect(1 - truePositiveProbability(own, null, none)).toBeGreaterThan(0.97);
    expect(1 - truePositiveProbability(own, null, qPosterior({ correct: 0, rollouts: 16 }))).toBeLessThan(0.5);
  });
});
