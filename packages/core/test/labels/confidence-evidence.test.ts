import { describe, expect, it } from "vitest";
import {
  applyLabelRule,
  bestOfNValue,
  confidenceOfLabel,
  qPosterior,
  truePositiveProbability,
  trueRuleLabels,
  type Label,
  type LabelRule,
  type QPosterior,
} from "../../src/labels";
import { createRng } from "../../src/stats";

/**
 * Label confidence rises with evidence. For a pair of prefixes (Q_{i−1}, Q_i)
 * whose estimates stay the same while the rollouts grow (s_j = p_j·m with p_j
 * a multiple of ¼, so the counts scale exactly from m = 4 on), the label on
 * the estimates stays the same and its confidence must not fall as m grows,
 * and must tend to 1 unless the estimates sit exactly on the rule's threshold
 * (then the label is a coin flip however many rollouts there are).
 */
const SHARES = [0, 0.25, 0.5, 0.75, 1];
const ROLLOUTS = [4, 8, 16, 32, 64, 128, 256, 512, 1024];
const RULES: Exclude<LabelRule, { rule: "abs-q" }>[] = [
  ...[0.6, 0.7, 0.8, 1, 1.2].map((gamma) => ({ rule: "rel-ratio" as const, gamma })),
  ...[0.2, 0.4, 0.8, 1].map((alpha) => ({ rule: "rel-effective" as const, alpha, n: 4 })),
  { rule: "rel-effective", alpha: 1, n: 1 },
  { rule: "rel-effective", alpha: 0, n: 4 },
];
const ABS_Q: LabelRule = { rule: "abs-q", evidence: "own-prefix" };
const TOLERANCE = 1e-9;

const counts = (share: number, m: number): QPosterior => qPosterior({ correct: Math.round(share * m), rollouts: m });
const name = (rule: LabelRule) => JSON.stringify(rule);

/** The rule's label on the estimates (previous, current), as a run labels them. */
function estimateLabel(rule: LabelRule, previous: number, current: number): Label {
  return applyLabelRule(rule, previous, [current])[0]!;
}

/**
 * How far the estimates lie from the rule's threshold: Q_i − γ·Q_{i−1} (Rel-Ratio) or Q_i + α·A^μ_i
 * (Rel-Effective); Infinity where a zero decides the label by the conventions (0 of m is Negative, a zero
 * previous value asks only whether Q_i > 0). 0 is a tie, which no amount of evidence settles.
 */
function margin(rule: Exclude<LabelRule, { rule: "abs-q" }>, previous: number, current: number): number {
  if (previous === 0 || current === 0) return Infinity;
  const value = rule.rule === "rel-ratio" ? current - rule.gamma * previous : current + rule.alpha * (bestOfNValue(current, rule.n) - bestOfNValue(previous, rule.n));
  return Math.abs(value) < 1e-12 ? 0 : Math.abs(value);
}
const onThreshold = (rule: Exclude<LabelRule, { rule: "abs-q" }>, previous: number, current: number) => margin(rule, previous, current) === 0;

/** Confidence of the estimate's label for each m of ROLLOUTS. */
function series(rule: LabelRule, label: Label, posteriors: (m: number) => [QPosterior | null, QPosterior]): number[] {
  return ROLLOUTS.map((m) => {
    const [previous, current] = posteriors(m);
    return confidenceOfLabel(label, truePositiveProbability(rule, previous, current));
  });
}

/** Non-decreasing over ROLLOUTS from index `from` on. */
function expectRising(values: readonly number[], what: string, from = 0): void {
  for (let j = from + 1; j < values.length; j++) expect(values[j]!, `${what}: m = ${ROLLOUTS[j]} after ${ROLLOUTS[j - 1]} (${values.join(", ")})`).toBeGreaterThanOrEqual(values[j - 1]! - TOLERANCE);
}

describe("label confidence rises with evidence", () => {
  it("relative rules, both prefixes sampled: the confidence of an unchanged label never falls with m and tends to 1 off the threshold", () => {
    let settled = 0;
    let close = 0;
    let ties = 0;
    for (const rule of RULES) {
      for (const previous of SHARES) {
        for (const current of SHARES) {
          const label = estimateLabel(rule, previous, current);
          const values = series(rule, label, (m) => [counts(previous, m), counts(current, m)]);
          const what = `${name(rule)} ${previous} → ${current} (${label})`;
          if (onThreshold(rule, previous, current)) {
            // A tie: the true value is as likely on either side, whatever m.
            ties += 1;
            expect(Math.abs(values.at(-1)! - 0.5), what).toBeLessThan(0.01);
            continue;
          }
          if (margin(rule, previous, current) >= 0.1) {
            settled += 1;
            expectRising(values, what);
            expect(values.at(-1)!, what).toBeGreaterThan(0.99);
          } else {
            // Close to the threshold (e.g. Rel-Ratio(0.7) on 0.75 → 0.5, ratio 0.667): slower, but on its way. From
            // m = 8 on: at m = 4 the Jeffreys prior's pull toward ½ can lean a label this close its own way (on this grid
            // Rel-Effective(0.8, 4) on 0.5 → 0.25, a Positive by 0.047: 0.620 at m = 4, 0.612 at m = 8, then rising).
            close += 1;
            expectRising(values, what, ROLLOUTS.indexOf(8));
            expect(values.at(-1)!, what).toBeGreaterThan(0.5);
            expect(values.at(-1)!, what).toBeGreaterThan(values[ROLLOUTS.indexOf(64)]! + 0.02);
          }
        }
      }
    }
    // Every pair of every rule is checked; the ties are the few exact threshold hits of the grid (e.g. γ = 1 on equal shares).
    expect(settled + close + ties).toBe(RULES.length * SHARES.length ** 2);
    expect(ties).toBeLessThan(12);
    expect(close).toBeLessThan(20);
    expect(settled).toBeGreaterThan(240);
  });

  it("0 of m → 0 of m is a Negative under both relative rules whose confidence rises toward 1 (it stayed near 0.44 for every m when the true rule ignored the zero convention)", () => {
    for (const rule of [{ rule: "rel-ratio", gamma: 0.7 } as const, { rule: "rel-effective", alpha: 0.8, n: 4 } as const]) {
      expect(estimateLabel(rule, 0, 0)).toBe("Negative");
      const values = series(rule, "Negative", (m) => [counts(0, m), counts(0, m)]);
      expectRising(values, `${name(rule)} 0 → 0`);
      expect(values[0]!).toBeLessThan(0.5); // 0/4 → 0/4: little evidence
      expect(values[ROLLOUTS.indexOf(16)]!).toBeGreaterThan(0.55);
      expect(values[ROLLOUTS.indexOf(256)]!).toBeGreaterThan(0.97);
      expect(values.at(-1)!).toBeGreaterThan(0.9999);
      // Strictly rising from one m to the next: each doubling of the failures adds evidence.
      for (let j = 1; j < values.length; j++) expect(values[j]!).toBeGreaterThan(values[j - 1]!);
    }
  });

  it("the last chunk, whose current value is the solution's known outcome: rising in the previous prefix's m", () => {
    for (const rule of RULES) {
      for (const previous of SHARES) {
        for (const outcome of [0, 1]) {
          const label = estimateLabel(rule, previous, outcome);
          const values = series(rule, label, (m) => [counts(previous, m), { kind: "known", value: outcome }]);
          const what = `${name(rule)} ${previous} → known ${outcome} (${label})`;
          expectRising(values, what);
          if (!onThreshold(rule, previous, outcome)) expect(values.at(-1)!, what).toBeGreaterThan(0.99);
        }
      }
    }
  });

  it("Abs-Q: rising in m for every share, 0 of m included", () => {
    for (const current of SHARES) {
      const label = estimateLabel(ABS_Q, 0, current);
      const values = series(ABS_Q, label, (m) => [null, counts(current, m)]);
      expectRising(values, `abs-q ${current} (${label})`);
      expect(values.at(-1)!).toBeGreaterThan(0.99);
    }
  });

  it("the confidence is the probability of the true rule's label: a Monte-Carlo draw from the posteriors agrees (ε-floored rule, both rules)", () => {
    const rng = createRng("confidence-evidence|monte-carlo");
    /** Beta(a, b) for a, b half-integers ≥ ½: a ratio of chi-squares from sums of squared normals. */
    const normal = () => Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
    const chiSquare = (df: number) => {
      let sum = 0;
      for (let i = 0; i < df; i++) sum += normal() ** 2;
      return sum;
    };
    const drawBeta = (a: number, b: number) => {
      const x = chiSquare(2 * a);
      return x / (x + chiSquare(2 * b));
    };
    const draws = 20_000;
    for (const rule of [{ rule: "rel-ratio", gamma: 0.7 } as const, { rule: "rel-ratio", gamma: 1.2 } as const, { rule: "rel-effective", alpha: 0.8, n: 4 } as const]) {
      for (const [s1, m1, s2, m2] of [
        [0, 32, 0, 32],
        [1, 32, 0, 32],
        [0, 16, 1, 16],
        [2, 8, 1, 8],
      ] as const) {
        const previous = qPosterior({ correct: s1, rollouts: m1 }) as Extract<QPosterior, { kind: "beta" }>;
        const current = qPosterior({ correct: s2, rollouts: m2 }) as Extract<QPosterior, { kind: "beta" }>;
        let positive = 0;
        for (let d = 0; d < draws; d++) if (trueRuleLabels(rule, drawBeta(previous.a, previous.b), [drawBeta(current.a, current.b)])[0] === "Positive") positive += 1;
        const exact = truePositiveProbability(rule, previous, current);
        const share = positive / draws;
        // Five standard errors of a share of 20,000 draws.
        expect(Math.abs(share - exact), `${name(rule)} ${s1}/${m1} → ${s2}/${m2}: ${share} vs ${exact}`).toBeLessThan(5 * Math.sqrt((exact * (1 - exact)) / draws) + 1e-3);
      }
    }
  });

  it("trueRuleLabels reads every value at or below ε as 0, and equals the rule elsewhere", () => {
    const ratio: LabelRule = { rule: "rel-ratio", gamma: 0.7 };
    // Q_{i−1} = 0.004 ≤ ε: the zero-previous branch (Positive iff Q_i > ε), not the ratio 0.003 / 0.004 = 0.75 > γ.
    expect(trueRuleLabels(ratio, 0.004, [0.003, 0.02])).toEqual(["Negative", "Positive"]);
    // Q_i = 0.009 ≤ ε after Q_{i−1} = 0.012: Negative although 0.009 / 0.012 = 0.75 > γ.
    expect(trueRuleLabels(ratio, 0.012, [0.009])).toEqual(["Negative"]);
    expect(trueRuleLabels(ratio, 0.5, [0.4, 0.2])).toEqual(applyLabelRule(ratio, 0.5, [0.4, 0.2]));
    expect(trueRuleLabels(ABS_Q, 0, [0.005, 0.05], 0.01)).toEqual(["Negative", "Positive"]);
    expect(trueRuleLabels(ABS_Q, 0, [0.005, 0.05], 0.001)).toEqual(["Positive", "Positive"]);
    expect(() => trueRuleLabels(ratio, 0.5, [0.4], 0)).toThrow(/epsilon/);
  });
});
