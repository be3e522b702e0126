import { describe, expect, it } from "vitest";
import {
  bestOfNValue,
  confidenceBin,
  labelConfidences,
  lowestConfidence,
  qPosterior,
  storedPrefixEvidence,
  truePositiveProbability,
  type LabelRule,
  type QPosterior,
} from "../../src/labels";
import { betaCdf, logBeta } from "../../src/stats";

type Rel = Exclude<LabelRule, { rule: "abs-q" }>;
type Beta = Extract<QPosterior, { kind: "beta" }>;

/**
 * Reference by a different route: integrate over the CURRENT prefix's
 * posterior instead of the previous one. The true rule is Positive iff
 * Q_i > ε and (Q_{i−1} ≤ ε or Q_i clears the rule's own threshold), so for a
 * current value q > ε the qualifying previous values are those below
 * max(ε, cut(q)), cut(q) the largest previous value whose threshold q still
 * clears: P = ∫_{q > ε} f_i(q) F_{i−1}(max(ε, cut(q))) dq, by composite Simpson
 * with 20,000 panels after q = sin²θ, from θ_ε = asin(√ε) (where the integrand
 * jumps from 0) to π/2.
 */
function referenceBySwappedIntegral(rule: Rel, previous: Beta, current: Beta, epsilon = 0.01): number {
  const cut = (q: number): number => {
    if (rule.rule === "rel-ratio") return q / rule.gamma;
    const y = (q + rule.alpha * bestOfNValue(q, rule.n)) / rule.alpha;
    return y >= 1 ? 1 : 1 - (1 - y) ** (1 / rule.n);
  };
  const logNorm = Math.log(2) - logBeta(current.a, current.b);
  const f = (theta: number) => {
    const s = Math.sin(theta);
    const c = Math.cos(theta);
    const q = s * s;
    // At θ = π/2 the weight cos^(2b−1) θ is 1 when b = ½ and 0 when b > ½.
    const cosTerm = c <= 0 ? (current.b === 0.5 ? 0 : -Infinity) : (2 * current.b - 1) * Math.log(c);
    return Math.exp(logNorm + (2 * current.a - 1) * Math.log(s) + cosTerm) * betaCdf(Math.min(1, Math.max(epsilon, cut(q))), previous.a, previous.b);
  };
  const from = Math.asin(Math.sqrt(epsilon));
  const panels = 20_000;
  const h = (Math.PI / 2 - from) / panels;
  let sum = f(from) + f(Math.PI / 2);
  for (let i = 1; i < panels; i++) sum += (i % 2 === 1 ? 4 : 2) * f(from + i * h);
  return (sum * h) / 3;
}

/** P(X > Y) for X ~ Beta(aX, bX) with integer aX, Y ~ Beta(aY, bY): the closed form of Bayesian A/B testing (a finite sum). */
function closedFormGreater(x: Beta, y: Beta): number {
  let total = 0;
  for (let i = 0; i < x.a; i++) total += Math.exp(logBeta(y.a + i, y.b + x.b) - Math.log(x.b + i) - logBeta(1 + i, x.b) - logBeta(y.a, y.b));
  return total;
}

const beta = (correct: number, rollouts: number, prior: "jeffreys" | "uniform" = "jeffreys") => qPosterior({ correct, rollouts }, prior) as Beta;

describe("Beta CDF", () => {
  it("agrees with closed forms", () => {
    for (const x of [0.001, 0.1, 0.37, 0.5, 0.9, 0.999]) {
      expect(betaCdf(x, 1, 1)).toBeCloseTo(x, 12);
      expect(betaCdf(x, 3, 1)).toBeCloseTo(x ** 3, 12);
      expect(betaCdf(x, 1, 4)).toBeCloseTo(1 - (1 - x) ** 4, 12);
      // Jeffreys' Beta(½, ½) is the arcsine distribution.
      expect(betaCdf(x, 0.5, 0.5)).toBeCloseTo((2 / Math.PI) * Math.asin(Math.sqrt(x)), 12);
    }
    for (const a of [0.5, 2.5, 16.5, 200]) expect(betaCdf(0.5, a, a)).toBeCloseTo(0.5, 12);
    expect(betaCdf(0, 2, 3)).toBe(0);
    expect(betaCdf(1, 2, 3)).toBe(1);
  });
});

describe("label confidence", () => {
  it("gives the issue's example: 12/16 → 9/16 is Rel-Ratio(0.7) Positive with probability ≈ 0.62", () => {
    const p = truePositiveProbability({ rule: "rel-ratio", gamma: 0.7 }, beta(12, 16), beta(9, 16));
    expect(p).toBeGreaterThan(0.61);
    expect(p).toBeLessThan(0.63);
  });

  it("as ε → 0, matches the closed form of P(Q_i > Q_{i−1}) (uniform prior, γ = 1) to 1e-6", () => {
    // With a vanishing floor the true rule is Q_i > γ·Q_{i−1} alone (Q_{i−1} ≤ ε has probability ≈ (m + 1)·ε).
    const vanishing = { prior: "uniform", absQEpsilon: 1e-12 } as const;
    for (const [s1, m1, s2, m2] of [
      [3, 10, 5, 10],
      [0, 16, 0, 16],
      [16, 16, 16, 16],
      [12, 16, 9, 16],
      [1, 1, 0, 4],
      [0, 32, 2, 32],
    ] as const) {
      const previous = beta(s1, m1, "uniform");
      const current = beta(s2, m2, "uniform");
      const p = truePositiveProbability({ rule: "rel-ratio", gamma: 1 }, previous, current, [], vanishing);
      expect(Math.abs(p - closedFormGreater(current, previous))).toBeLessThan(1e-6);
    }
  });

  it("matches an independent integral over the other prefix to 1e-4 for both relative rules (Jeffreys)", () => {
    const rules: Rel[] = [
      { rule: "rel-ratio", gamma: 0.7 },
      { rule: "rel-ratio", gamma: 1.2 },
      { rule: "rel-ratio", gamma: 0.6 },
      { rule: "rel-effective", alpha: 0.8, n: 4 },
      { rule: "rel-effective", alpha: 0.2, n: 4 },
      { rule: "rel-effective", alpha: 1, n: 1 },
    ];
    const pairs: [number, number, number, number][] = [
      [12, 16, 9, 16], // the example
      [8, 16, 8, 16], // symmetric
      [0, 16, 0, 16], // both near 0
      [16, 16, 16, 16], // both near 1
      [0, 32, 5, 32], // previous posterior near 0
      [1, 1, 0, 1], // one rollout each
      [30, 32, 1, 4],
      [3, 128, 2, 128], // narrow posteriors near 0
      [200, 256, 140, 256], // narrow posteriors, mid
      [0, 256, 0, 256], // both mostly below ε
      [1, 64, 0, 64], // previous straddles ε
      [0, 1024, 3, 1024], // previous almost surely ≤ ε, current just above it
      [2, 1024, 1, 1024], // both straddle ε, narrow
    ];
    for (const rule of rules) {
      for (const [s1, m1, s2, m2] of pairs) {
        const previous = beta(s1, m1);
        const current = beta(s2, m2);
        const p = truePositiveProbability(rule, previous, current);
        const reference = referenceBySwappedIntegral(rule, previous, current);
        expect(Math.abs(p - reference), `${JSON.stringify(rule)} ${s1}/${m1} → ${s2}/${m2}: ${p} vs ${reference}`).toBeLessThan(1e-4);
      }
    }
  });

  it("reads a true Q ≤ ε as the estimate's 0: a zero previous value needs Q_i > ε, and Q_i ≤ ε is Negative", () => {
    const epsilon = 0.01;
    const ratio = { rule: "rel-ratio", gamma: 0.7 } as const;
    const none = beta(0, 16);
    const below = betaCdf(epsilon, 0.5, 16.5); // P(Q ≤ ε | 0 of 16)
    // 0/16 → 0/16: both ≤ ε (true Negative), or Q_{i−1} > ε with Q_i ≤ max(ε, γ·Q_{i−1}); so at least P(Q_i ≤ ε).
    const zeroZero = 1 - truePositiveProbability(ratio, none, none);
    expect(zeroZero).toBeGreaterThan(below);
    expect(zeroZero).toBeCloseTo(0.5532, 4);
    // Without the floor on Q_{i−1} it would be P(Q_i ≤ 0.7·Q_{i−1}) ≈ 0.443 for every m (the ratio of two small
    // values does not settle); with it, more failures settle the label.
    expect(1 - truePositiveProbability(ratio, beta(0, 256), beta(0, 256))).toBeGreaterThan(0.97);
    // A known previous value at or below ε takes the zero-previous branch exactly: P(Q_i > ε).
    expect(truePositiveProbability(ratio, { kind: "known", value: 0 }, beta(3, 16))).toBeCloseTo(1 - betaCdf(epsilon, 3.5, 13.5), 12);
    expect(truePositiveProbability(ratio, { kind: "known", value: 0.005 }, beta(3, 16))).toBeCloseTo(1 - betaCdf(epsilon, 3.5, 13.5), 12);
    // Above ε, the threshold is max(ε, γ·Q_{i−1}): γ·0.012 = 0.0084 < ε, so still P(Q_i > ε); at 0.5 it is 0.35.
    expect(truePositiveProbability(ratio, { kind: "known", value: 0.012 }, beta(3, 16))).toBeCloseTo(1 - betaCdf(epsilon, 3.5, 13.5), 12);
    expect(truePositiveProbability(ratio, { kind: "known", value: 0.5 }, beta(3, 16))).toBeCloseTo(1 - betaCdf(0.35, 3.5, 13.5), 12);
    // A known current value at or below ε is Negative whatever came before; above it, Q_{i−1} below max(ε, c/γ) qualifies.
    expect(truePositiveProbability(ratio, beta(0, 16), { kind: "known", value: 0.005 })).toBe(0);
    expect(truePositiveProbability(ratio, beta(0, 16), { kind: "known", value: 0.02 })).toBeCloseTo(betaCdf(0.02 / 0.7, 0.5, 16.5), 12);
    // With γ = 1.2 and c = 0.011, c/γ < ε: every Q_{i−1} ≤ ε qualifies (the zero branch), and none above it.
    expect(truePositiveProbability({ rule: "rel-ratio", gamma: 1.2 }, beta(0, 16), { kind: "known", value: 0.011 })).toBeCloseTo(betaCdf(epsilon, 0.5, 16.5), 12);
    // Rel-Effective with α = 0 is "Q_i > 0" on estimates, Abs-Q's rule: its true rule is Abs-Q's, Q_i > ε.
    const flat = { rule: "rel-effective", alpha: 0, n: 4 } as const;
    expect(truePositiveProbability(flat, beta(5, 16), none)).toBeCloseTo(1 - below, 12);
    expect(truePositiveProbability(flat, none, none)).toBeCloseTo(1 - below, 12);
    // The floor is the option's ε for every rule.
    const wide = { prior: "jeffreys", absQEpsilon: 0.05 } as const;
    expect(1 - truePositiveProbability(ratio, none, none, [], wide)).toBeGreaterThan(zeroZero);
  });

  it("Abs-Q: P(Q_i > ε) from the posterior; later-prefixes: some Q_j > ε", () => {
    const own = { rule: "abs-q", evidence: "own-prefix" } as const;
    expect(truePositiveProbability(own, null, beta(0, 16))).toBeCloseTo(1 - betaCdf(0.01, 0.5, 16.5), 12);
    expect(truePositiveProbability(own, null, beta(4, 4))).toBeGreaterThan(0.999);
    expect(truePositiveProbability(own, null, { kind: "known", value: 0 })).toBe(0);
    expect(truePositiveProbability(own, null, { kind: "known", value: 1 })).toBe(1);
    const later = { rule: "abs-q", evidence: "later-prefixes" } as const;
    const none = betaCdf(0.01, 0.5, 16.5);
    expect(truePositiveProbability(later, null, beta(0, 16), [beta(0, 16), beta(0, 16)])).toBeCloseTo(1 - none ** 3, 12);
    expect(truePositiveProbability(later, null, beta(0, 16), [{ kind: "known", value: 1 }])).toBe(1);
    // A larger ε makes "no success possible" more likely.
    expect(truePositiveProbability(own, null, beta(0, 16), [], { prior: "jeffreys", absQEpsilon: 0.05 })).toBeLessThan(truePositiveProbability(own, null, beta(0, 16)));
  });

  it("with the finished solution's known outcome as the current value", () => {
    const previous = beta(10, 16);
    expect(truePositiveProbability({ rule: "rel-ratio", gamma: 0.7 }, previous, { kind: "known", value: 1 })).toBe(1);
    expect(truePositiveProbability({ rule: "rel-ratio", gamma: 1.2 }, previous, { kind: "known", value: 1 })).toBeCloseTo(betaCdf(1 / 1.2, 10.5, 6.5), 12);
    expect(truePositiveProbability({ rule: "rel-ratio", gamma: 0.7 }, previous, { kind: "known", value: 0 })).toBe(0);
    expect(truePositiveProbability({ rule: "rel-effective", alpha: 0.8, n: 4 }, previous, { kind: "known", value: 1 })).toBe(1);
    expect(truePositiveProbability({ rule: "rel-effective", alpha: 0.8, n: 4 }, previous, { kind: "known", value: 0 })).toBe(0);
  });

  it("refuses counts that are not s of m with m ≥ 1", () => {
    expect(() => qPosterior({ correct: 0, rollouts: 0 })).toThrow(/at least one rollout/);
    expect(() => qPosterior({ correct: 5, rollouts: 4 })).toThrow(/from 0 to 4/);
    expect(() => qPosterior({ correct: -1, rollouts: 4 })).toThrow(/from 0 to 4/);
    expect(() => qPosterior({ correct: 1.5, rollouts: 4 })).toThrow(/integer/);
  });

  it("per chunk: the label's own probability, null where evidence is missing", () => {
    const rule = { rule: "rel-ratio", gamma: 0.7 } as const;
    const prefixes = [{ correct: 12, rollouts: 16 }, { correct: 9, rollouts: 16 }, null, { known: 0 }];
    const confidences = labelConfidences(rule, ["Positive", "Negative", "Negative"], prefixes);
    expect(confidences[0]).toBeCloseTo(truePositiveProbability(rule, beta(12, 16), beta(9, 16)), 12);
    expect(confidences[1]).toBeNull();
    expect(confidences[2]).toBeNull();
    expect(lowestConfidence(confidences)).toBe(confidences[0]);
    // A Negative label's confidence is the chance the true label is Negative.
    const negative = labelConfidences(rule, ["Negative"], [{ correct: 12, rollouts: 16 }, { correct: 9, rollouts: 16 }])[0]!;
    expect(negative).toBeCloseTo(1 - confidences[0]!, 12);
    // later-prefixes: a Negative label needs every later prefix sampled.
    const later = { rule: "abs-q", evidence: "later-prefixes" } as const;
    expect(labelConfidences(later, ["Negative", "Negative"], [null, { correct: 0, rollouts: 4 }, null])[0]).toBeNull();
    expect(() => labelConfidences(rule, ["Positive"], [null])).toThrow(/need 2 prefixes/);
  });

  it("reads stored rows: sampled prefixes as counts, the finished solution as its known outcome", () => {
    const evidence = storedPrefixEvidence(
      [
        { prefixLength: 0, rolloutCount: 16, correctCount: 8 },
        { prefixLength: 2, rolloutCount: 4, correctCount: 1 },
        { prefixLength: 3, rolloutCount: 0, correctCount: 1 },
      ],
      3,
    );
    expect(evidence).toEqual([{ correct: 8, rollouts: 16 }, null, { correct: 1, rollouts: 4 }, { known: 1 }]);
  });

  it("bins confidences in tenths", () => {
    expect([0, 0.05, 0.1, 0.55, 0.95, 1].map(confidenceBin)).toEqual([0, 0, 1, 5, 9, 9]);
  });
});
