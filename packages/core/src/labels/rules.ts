import { z } from "zod";
import { LABEL_EPSILON, type Label } from "./label";
import { assertQValues, bestOfNValue } from "./q-values";

/**
 * The label rules of StepWiser (spec §2). Chunks are 0-based here: `q[i]` is the
 * Q-value after chunk i, and `q0` the value of the bare problem, which plays the
 * role of the previous value for the first chunk (OPEN in the paper; our choice,
 * documented in docs/DOMAIN.md).
 */
export const labelRuleSchema = z.discriminatedUnion("rule", [
  z.object({ rule: z.literal("abs-q") }),
  z.object({ rule: z.literal("rel-ratio"), gamma: z.number().positive() }),
  z.object({
    rule: z.literal("rel-effective"),
    alpha: z.number().nonnegative(),
    n: z.number().int().min(1),
  }),
]);
export type LabelRule = z.infer<typeof labelRuleSchema>;
export type LabelRuleName = LabelRule["rule"];

/** Paper defaults (7B policy): γ = 0.7 for Rel-Ratio; α = 0.8, n = 4 for Rel-Effective. */
export const DEFAULT_LABEL_RULES = {
  "abs-q": { rule: "abs-q" },
  "rel-ratio": { rule: "rel-ratio", gamma: 0.7 },
  "rel-effective": { rule: "rel-effective", alpha: 0.8, n: 4 },
} as const satisfies Record<LabelRuleName, LabelRule>;

/** Abs-Q (Math-Shepherd "hard" estimation): Positive iff some rollout after the chunk still succeeds. */
export function absQLabels(q: readonly number[]): Label[] {
  assertQValues(q);
  return q.map((value) => (value > LABEL_EPSILON ? "Positive" : "Negative"));
}

/**
 * Rel-Ratio(γ): Positive iff Q_i / Q_{i-1} > γ. When the previous value is 0 the
 * ratio is undefined; the chunk is then Positive iff it recovers (Q_i > 0).
 */
export function relRatioLabels(q0: number, q: readonly number[], { gamma }: { gamma: number }): Label[] {
  if (!(gamma > 0)) throw new RangeError(`gamma must be positive, got ${gamma}`);
  assertQValues([q0], "Q_0");
  assertQValues(q);
  return q.map((value, i) => {
    const previous = i === 0 ? q0 : q[i - 1]!;
    if (previous <= LABEL_EPSILON) return value > LABEL_EPSILON ? "Positive" : "Negative";
    return value / previous > gamma + LABEL_EPSILON ? "Positive" : "Negative";
  });
}

/**
 * Rel-Effective(α, n): with Q^μ = 1 − (1 − Q)^n for a best-of-n prover and the
 * advantage A^μ_i = Q^μ_i − Q^μ_{i-1}, Positive iff Q_i + α·A^μ_i > 0.
 */
export function relEffectiveLabels(q0: number, q: readonly number[], { alpha, n }: { alpha: number; n: number }): Label[] {
  if (!(alpha >= 0)) throw new RangeError(`alpha must be ≥ 0, got ${alpha}`);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  assertQValues([q0], "Q_0");
  assertQValues(q);
  return q.map((value, i) => {
    const previous = i === 0 ? q0 : q[i - 1]!;
    const advantage = bestOfNValue(value, n) - bestOfNValue(previous, n);
    return value + alpha * advantage > LABEL_EPSILON ? "Positive" : "Negative";
  });
}

/** Applies one configured rule; Abs-Q ignores q0. */
export function applyLabelRule(rule: LabelRule, q0: number, q: readonly number[]): Label[] {
  switch (rule.rule) {
    case "abs-q":
      return absQLabels(q);
    case "rel-ratio":
      return relRatioLabels(q0, q, rule);
    case "rel-effective":
      return relEffectiveLabels(q0, q, rule);
  }
}

/** Soft labels (Math-Shepherd "soft" estimation): the Q-values themselves. */
export function softLabels(q: readonly number[]): number[] {
  assertQValues(q);
  return [...q];
}

/** A stable, human-readable name for a rule with its parameters, e.g. "rel-ratio(gamma=0.7)". */
export function labelRuleKey(rule: LabelRule): string {
  switch (rule.rule) {
    case "abs-q":
      return "abs-q";
    case "rel-ratio":
      return `rel-ratio(gamma=${rule.gamma})`;
    case "rel-effective":
      return `rel-effective(alpha=${rule.alpha},n=${rule.n})`;
  }
}

/** The parameter grid of the paper's ablations, for sweeps. */
export const PAPER_GAMMA_GRID = [0.6, 0.7, 0.8, 1.0, 1.2] as const;
export const PAPER_ALPHA_GRID = [0.2, 0.4, 0.6, 0.8, 1.0] as const;
export const PAPER_REL_EFFECTIVE_N = 4;

export function paperLabelRuleGrid(): LabelRule[] {
  return [
    { rule: "abs-q" },
    ...PAPER_GAMMA_GRID.map((gamma): LabelRule => ({ rule: "rel-ratio", gamma })),
    ...PAPER_ALPHA_GRID.map((alpha): LabelRule => ({ rule: "rel-effective", alpha, n: PAPER_REL_EFFECTIVE_N })),
  ];
}

/**
 * Abs-Q from evidence of success rather than from estimated Q-values: chunk i is
 * Positive iff some rollout from prefix i+1 or from any later prefix reached the
 * right answer (`successAtPrefix[j]` is that evidence for the prefix ending at
 * chunk j; the last entry is the solution's own final answer). A success from a
 * later prefix is itself a continuation of every earlier one, so this is Abs-Q's
 * "Q > 0" with all the evidence the rollouts give, and it lets a cheaper sampling
 * strategy stop as soon as the answer is known.
 */
export function absQLabelsFromWitnesses(successAtPrefix: readonly boolean[]): Label[] {
  const labels: Label[] = new Array(successAtPrefix.length);
  let witnessed = false;
  for (let i = successAtPrefix.length - 1; i >= 0; i--) {
    witnessed ||= successAtPrefix[i]!;
    labels[i] = witnessed ? "Positive" : "Negative";
  }
  return labels;
}

/** Canonical JSON of a rule's parameters, stable across runs (keys sorted). */
export function labelRuleParamsKey(rule: LabelRule): string {
  const { rule: _name, ...params } = rule;
  return JSON.stringify(Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))));
}
