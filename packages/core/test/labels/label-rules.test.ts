import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  absQLabels,
  applyLabelRule,
  bestOfNValue,
  firstErrorIndex,
  labelRuleKey,
  paperLabelRuleGrid,
  qValueFromOutcomes,
  relEffectiveLabels,
  relRatioLabels,
  softLabels,
} from "../../src/labels";

const P = "Positive";
const N = "Negative";

// One worked example used by every rule: Q_0 = 0.5 and five chunks.
const q0 = 0.5;
const q = [0.5, 0.75, 0.25, 0, 0.5];

describe("Q-values", () => {
  it("is the share of successful rollouts", () => {
    expect(qValueFromOutcomes([true, false, true, true])).toBe(0.75);
    expect(qValueFromOutcomes([0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toBe(1 / 16);
    expect(() => qValueFromOutcomes([])).toThrow(/at least one rollout/);
  });

  it("best-of-n value is 1 - (1 - Q)^n", () => {
    expect(bestOfNValue(0.5, 4)).toBe(0.9375);
    expect(bestOfNValue(0.25, 4)).toBe(0.68359375);
    expect(bestOfNValue(0, 4)).toBe(0);
    expect(bestOfNValue(1, 4)).toBe(1);
  });

  it("refuses values outside [0, 1]", () => {
    expect(() => absQLabels([0.5, 1.2])).toThrow(/Q-value 1 is 1.2/);
    expect(() => relRatioLabels(-0.1, [0.5], { gamma: 0.7 })).toThrow(/Q_0/);
  });
});

describe("Abs-Q", () => {
  it("labels a chunk Positive iff some rollout after it succeeds", () => {
    expect(absQLabels(q)).toEqual([P, P, P, N, P]);
    expect(firstErrorIndex(absQLabels(q))).toBe(3);
  });
});

describe("Rel-Ratio", () => {
  it("compares each Q with the previous one, Q_0 for the first chunk (γ = 0.7)", () => {
    // 0.5/0.5 = 1 > .7 P; .75/.5 = 1.5 P; .25/.75 = .33 N; 0/.25 = 0 N; previous 0 and Q > 0 → P
    expect(relRatioLabels(q0, q, { gamma: 0.7 })).toEqual([P, P, N, N, P]);
  });

  it("is strict: a ratio equal to γ is Negative, also after floating-point division", () => {
    // 1 > 1 is false for the first chunk
    expect(relRatioLabels(q0, q, { gamma: 1 })).toEqual([N, P, N, N, P]);
    // 7/16 ÷ 10/16 = 0.7 up to rounding
    expect(relRatioLabels(10 / 16, [7 / 16], { gamma: 0.7 })).toEqual([N]);
    expect(relRatioLabels(10 / 16, [8 / 16], { gamma: 0.7 })).toEqual([P]);
  });

  it("after a zero value, only a recovering chunk is Positive", () => {
    expect(relRatioLabels(0, [0, 0.25, 0], { gamma: 0.8 })).toEqual([N, P, N]);
  });
});

describe("Rel-Effective", () => {
  it("adds α times the best-of-n advantage (α = 0.8, n = 4)", () => {
    // Q^μ: .5 → .9375, .75 → .99609375, .25 → .68359375, 0 → 0
    // chunk 2: .25 + .8 × (.68359375 − .99609375) = .25 − .25 = 0 → not > 0 → N
    expect(relEffectiveLabels(q0, q, { alpha: 0.8, n: 4 })).toEqual([P, P, N, N, P]);
  });

  it("a smaller α forgives the same drop (α = 0.4)", () => {
    // chunk 2: .25 − .4 × .3125 = .125 > 0 → P
    expect(relEffectiveLabels(q0, q, { alpha: 0.4, n: 4 })).toEqual([P, P, P, N, P]);
  });

  it("with α = 0 it is Abs-Q", () => {
    expect(relEffectiveLabels(q0, q, { alpha: 0, n: 4 })).toEqual(absQLabels(q));
  });
});

describe("rule configuration", () => {
  it("dispatches by name and names rules stably", () => {
    expect(applyLabelRule({ rule: "rel-ratio", gamma: 0.7 }, q0, q)).toEqual([P, P, N, N, P]);
    expect(labelRuleKey({ rule: "rel-effective", alpha: 0.8, n: 4 })).toBe("rel-effective(alpha=0.8,n=4)");
    expect(paperLabelRuleGrid().map(labelRuleKey)).toEqual([
      "abs-q(evidence=own-prefix)",
      "rel-ratio(gamma=0.6)",
      "rel-ratio(gamma=0.7)",
      "rel-ratio(gamma=0.8)",
      "rel-ratio(gamma=1)",
      "rel-ratio(gamma=1.2)",
      "rel-effective(alpha=0.2,n=4)",
      "rel-effective(alpha=0.4,n=4)",
      "rel-effective(alpha=0.6,n=4)",
      "rel-effective(alpha=0.8,n=4)",
      "rel-effective(alpha=1,n=4)",
    ]);
  });

  it("soft labels are the Q-values", () => {
    expect(softLabels(q)).toEqual(q);
  });
});

// Q-values as the Monte-Carlo estimates they are: k/M for M rollouts.
const M = 16;
const qValue = fc.integer({ min: 0, max: M }).map((k) => k / M);
const positiveQ = fc.integer({ min: 1, max: M }).map((k) => k / M);
const gammaBelowOne = fc.double({ min: 0.05, max: 0.999, noNaN: true });

describe("label invariants", () => {
  it("Abs-Q: Positive ⇔ Q > 0", () => {
    fc.assert(
      fc.property(fc.array(qValue, { minLength: 1, maxLength: 20 }), (values) => {
        absQLabels(values).forEach((label, i) => expect(label === P).toBe(values[i]! > 0));
      }),
    );
  });

  it("Rel-Ratio with γ < 1 never labels a non-decreasing positive Q Negative", () => {
    fc.assert(
      fc.property(fc.array(positiveQ, { minLength: 2, maxLength: 20 }), gammaBelowOne, (values, gamma) => {
        const sorted = [...values].sort((a, b) => a - b);
        expect(relRatioLabels(sorted[0]!, sorted.slice(1), { gamma })).not.toContain(N);
      }),
    );
  });

  it("Rel-Ratio with γ ≤ 1 never labels a strictly increasing Q Negative", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: M }), { minLength: 2, maxLength: M + 1 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        (ks, gamma) => {
          const sorted = [...ks].sort((a, b) => a - b).map((k) => k / M);
          expect(relRatioLabels(sorted[0]!, sorted.slice(1), { gamma })).not.toContain(N);
        },
      ),
    );
  });

  it("Rel-Effective: a chunk that keeps or raises a positive Q is Positive; Q = 0 is Negative", () => {
    fc.assert(
      fc.property(
        qValue,
        fc.array(qValue, { minLength: 1, maxLength: 20 }),
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.integer({ min: 1, max: 16 }),
        (start, values, alpha, n) => {
          const labels = relEffectiveLabels(start, values, { alpha, n });
          values.forEach((value, i) => {
            const previous = i === 0 ? start : values[i - 1]!;
            if (value === 0) expect(labels[i]).toBe(N);
            else if (value >= previous) expect(labels[i]).toBe(P);
          });
        },
      ),
    );
  });

  it("Abs-Q is the most lenient rule: Positive under any other rule implies Positive under Abs-Q", () => {
    fc.assert(
      fc.property(qValue, fc.array(qValue, { minLength: 1, maxLength: 20 }), (start, values) => {
        const abs = absQLabels(values);
        for (const rule of paperLabelRuleGrid()) {
          applyLabelRule(rule, start, values).forEach((label, i) => {
            if (label === P) expect(abs[i]).toBe(P);
          });
        }
      }),
    );
  });

  it("the first-error index is the first Negative, -1 when none", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(P, N), { maxLength: 20 }), (labels) => {
        const index = firstErrorIndex(labels);
        if (index === -1) expect(labels).not.toContain(N);
        else {
          expect(labels[index]).toBe(N);
          expect(labels.slice(0, index)).not.toContain(N);
        }
      }),
    );
  });
});
