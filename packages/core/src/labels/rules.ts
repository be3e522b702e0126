import { z } from "zod";
import { LABEL_EPSILON, type Label } from "./label";
import { assertQValues, bestOfNValue } from "./q-values";

/**
 * The one home of the Monte-Carlo label rules (spec §2): their names and stored
 * spellings, parameters and defaults, parameter keys, readable names, and the
 * functions from Q-values to labels. Everything else (pipeline, API, web, CLI)
 * calls these; `labelsFromStoredValues` (./stored-values) turns what a run
 * stored into labels with them.
 *
 * Chunks are 0-based here: `q[i]` is the Q-value after chunk i, and `q0` the
 * value of the bare problem, which plays the role of the previous value for the
 * first chunk (OPEN in the paper; our choice, documented in docs/DOMAIN.md).
 */

/** The rules, as the domain (configs, CLI, API, UI, exports) spells them. */
export const LABEL_RULE_NAMES = ["abs-q", "rel-ratio", "rel-effective"] as const;
export type LabelRuleName = (typeof LABEL_RULE_NAMES)[number];

/** How each rule is spelled where it is stored (the database enum `LabelRule`). */
export const STORED_LABEL_RULE_NAMES = {
  "abs-q": "abs_q",
  "rel-ratio": "rel_ratio",
  "rel-effective": "rel_effective",
} as const satisfies Record<LabelRuleName, string>;
export type StoredLabelRuleName = (typeof STORED_LABEL_RULE_NAMES)[LabelRuleName];
export const STORED_LABEL_RULE_VALUES = LABEL_RULE_NAMES.map((name) => STORED_LABEL_RULE_NAMES[name]) as unknown as readonly [StoredLabelRuleName, ...StoredLabelRuleName[]];

export function storedLabelRuleName(rule: LabelRuleName): StoredLabelRuleName {
  return STORED_LABEL_RULE_NAMES[rule];
}

/** The domain name of a stored rule spelling (abs_q → abs-q), or null for a spelling no rule has. */
export function labelRuleNameFromStored(stored: string): LabelRuleName | null {
  for (const name of LABEL_RULE_NAMES) if (STORED_LABEL_RULE_NAMES[name] === stored) return name;
  return null;
}

export function isLabelRuleName(value: string): value is LabelRuleName {
  return (LABEL_RULE_NAMES as readonly string[]).includes(value);
}

/**
 * Which rollouts count as evidence that chunk i can still lead to the right
 * answer under Abs-Q:
 * - `own-prefix` (the paper's estimator, the default): only the M rollouts that
 *   continue chunk i's own prefix [problem, a_1..a_i]; Positive iff one of them
 *   succeeds (Q̂_i > 0).
 * - `later-prefixes`: also any success from a later prefix, and the solution's
 *   own correct final answer. Sound only when the solution was sampled by the
 *   same policy that rolls out (then a later success is a continuation of the
 *   earlier prefix); an annotate run refuses it otherwise.
 */
export const ABS_Q_EVIDENCE = ["own-prefix", "later-prefixes"] as const;
export type AbsQEvidence = (typeof ABS_Q_EVIDENCE)[number];
export const DEFAULT_ABS_Q_EVIDENCE: AbsQEvidence = "own-prefix";
export const absQEvidenceSchema = z.enum(ABS_Q_EVIDENCE);

export const labelRuleSchema = z.discriminatedUnion("rule", [
  z.object({ rule: z.literal("abs-q"), evidence: absQEvidenceSchema.default(DEFAULT_ABS_Q_EVIDENCE) }),
  z.object({ rule: z.literal("rel-ratio"), gamma: z.number().positive() }),
  z.object({
    rule: z.literal("rel-effective"),
    alpha: z.number().nonnegative(),
    n: z.number().int().min(1),
  }),
]);
export type LabelRule = z.output<typeof labelRuleSchema>;
export type LabelRuleInput = z.input<typeof labelRuleSchema>;
export type AbsQRule = Extract<LabelRule, { rule: "abs-q" }>;

/** Paper defaults (7B policy): Abs-Q from each chunk's own prefix; γ = 0.7 for Rel-Ratio; α = 0.8, n = 4 for Rel-Effective. */
export const DEFAULT_LABEL_RULES = {
  "abs-q": { rule: "abs-q", evidence: DEFAULT_ABS_Q_EVIDENCE },
  "rel-ratio": { rule: "rel-ratio", gamma: 0.7 },
  "rel-effective": { rule: "rel-effective", alpha: 0.8, n: 4 },
} as const satisfies Record<LabelRuleName, LabelRule>;

/** The rules an annotate run labels with unless told otherwise: all three at the paper's defaults. */
export function defaultLabelRules(): LabelRule[] {
  return LABEL_RULE_NAMES.map((name) => ({ ...DEFAULT_LABEL_RULES[name] }));
}

/**
 * A rule from loose options (command-line flags, form fields), each parameter
 * falling back to the paper's default. Throws a RangeError naming the option
 * when the name or a value is not valid.
 */
export function labelRuleFromOptions(options: { rule?: string; gamma?: number; alpha?: number; n?: number; evidence?: string }): LabelRule {
  const { rule } = options;
  const names = `${LABEL_RULE_NAMES.slice(0, -1).join(", ")} or ${LABEL_RULE_NAMES.at(-1)}`;
  if (rule === undefined) throw new RangeError(`rule is required: ${names}`);
  if (!isLabelRuleName(rule)) throw new RangeError(`rule must be ${names}, got "${rule}"`);
  const unused = (["gamma", "alpha", "n", "evidence"] as const).filter((key) => options[key] !== undefined && !RULE_PARAMETERS[rule].includes(key));
  if (unused.length > 0) throw new RangeError(`${unused.join(", ")} ${unused.length > 1 ? "are not parameters" : "is not a parameter"} of ${rule} (its parameters: ${RULE_PARAMETERS[rule].join(", ") || "none"})`);
  const { gamma, alpha, n, evidence } = options;
  if (gamma !== undefined && !(gamma > 0)) throw new RangeError(`gamma must be positive, got "${gamma}"`);
  if (alpha !== undefined && !(alpha >= 0)) throw new RangeError(`alpha must be ≥ 0, got "${alpha}"`);
  if (n !== undefined && !(Number.isInteger(n) && n >= 1)) throw new RangeError(`n must be a positive integer, got "${n}"`);
  if (evidence !== undefined && !(ABS_Q_EVIDENCE as readonly string[]).includes(evidence)) throw new RangeError(`evidence must be ${ABS_Q_EVIDENCE.join(" or ")}, got "${evidence}"`);
  const defaults: Record<string, unknown> = DEFAULT_LABEL_RULES[rule];
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return labelRuleSchema.parse({ ...defaults, ...given });
}

/** Each rule's parameter names. */
export const RULE_PARAMETERS: Record<LabelRuleName, readonly ("gamma" | "alpha" | "n" | "evidence")[]> = {
  "abs-q": ["evidence"],
  "rel-ratio": ["gamma"],
  "rel-effective": ["alpha", "n"],
};

/**
 * Abs-Q (Math-Shepherd "hard" estimation) from each chunk's own Q-value:
 * Positive iff some rollout continuing the chunk's own prefix succeeded.
 */
export function absQLabels(q: readonly number[]): Label[] {
  assertQValues(q);
  return q.map((value) => (value > LABEL_EPSILON ? "Positive" : "Negative"));
}

/**
 * Abs-Q with `later-prefixes` evidence, from Q-values: chunk i is Positive iff
 * Q̂_j > 0 for some j ≥ i (a success continuing a later prefix, or the
 * solution's own correct answer as the last entry).
 */
export function absQLaterPrefixesLabels(q: readonly number[]): Label[] {
  assertQValues(q);
  return absQLabelsFromSuccesses(q.map((value) => value > LABEL_EPSILON), "later-prefixes");
}

/**
 * Abs-Q from per-prefix evidence of success (`success[i]`: some rollout from
 * the prefix ending at chunk i succeeded; the last entry is the solution's own
 * outcome). `own-prefix`: the label of chunk i is `success[i]`. `later-prefixes`:
 * chunk i is Positive iff `success[j]` for some j ≥ i.
 */
export function absQLabelsFromSuccesses(success: readonly boolean[], evidence: AbsQEvidence): Label[] {
  if (evidence === "own-prefix") return success.map((s) => (s ? "Positive" : "Negative"));
  const labels: Label[] = new Array(success.length);
  let witnessed = false;
  for (let i = success.length - 1; i >= 0; i--) {
    witnessed ||= success[i]!;
    labels[i] = witnessed ? "Positive" : "Negative";
  }
  return labels;
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

/** Applies one rule to Q-values (`q[k-1]` is the solution's own outcome); Abs-Q ignores q0. */
export function applyLabelRule(rule: LabelRule, q0: number, q: readonly number[]): Label[] {
  switch (rule.rule) {
    case "abs-q":
      return rule.evidence === "later-prefixes" ? absQLaterPrefixesLabels(q) : absQLabels(q);
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

/** A stable, human-readable name for a rule with its parameters, e.g. "rel-ratio(gamma=0.7)", "abs-q(evidence=own-prefix)". */
export function labelRuleKey(rule: LabelRule): string {
  switch (rule.rule) {
    case "abs-q":
      return `abs-q(evidence=${rule.evidence})`;
    case "rel-ratio":
      return `rel-ratio(gamma=${rule.gamma})`;
    case "rel-effective":
      return `rel-effective(alpha=${rule.alpha},n=${rule.n})`;
  }
}

/** Canonical JSON of a rule's parameters, stable across runs (keys sorted): the stored `paramsKey`. */
export function labelRuleParamsKey(rule: LabelRule): string {
  const { rule: _name, ...params } = rule;
  return JSON.stringify(Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))));
}

/** A rule as it is stored beside each label: the stored spelling and the parameters key. */
export interface StoredLabelRule {
  rule: StoredLabelRuleName;
  paramsKey: string;
}

export function storedLabelRule(rule: LabelRule): StoredLabelRule {
  return { rule: storedLabelRuleName(rule.rule), paramsKey: labelRuleParamsKey(rule) };
}

/**
 * The label rule a stored (rule, paramsKey) pair stands for, or null when the
 * pair does not parse as one. Parameters are read as stored, never filled with
 * defaults: an Abs-Q pair without its evidence is not a rule of today.
 */
export function labelRuleFromStored(rule: string, paramsKey: string): LabelRule | null {
  const name = labelRuleNameFromStored(rule);
  if (!name) return null;
  let params: unknown;
  try {
    params = JSON.parse(paramsKey);
  } catch {
    return null;
  }
  if (typeof params !== "object" || params === null || Array.isArray(params)) return null;
  if (!RULE_PARAMETERS[name].every((key) => key in params)) return null;
  const parsed = labelRuleSchema.safeParse({ ...params, rule: name });
  if (!parsed.success || labelRuleParamsKey(parsed.data) !== paramsKey) return null;
  return parsed.data;
}

/** "rel-ratio(gamma=0.7)" where the stored pair parses, else the raw pair. */
export function describeStoredLabelRule(rule: string, paramsKey: string): string {
  const parsed = labelRuleFromStored(rule, paramsKey);
  return parsed ? labelRuleKey(parsed) : `${labelRuleNameFromStored(rule) ?? rule} ${paramsKey}`;
}

/** The parameter grid of the paper's ablations, for sweeps. */
export const PAPER_GAMMA_GRID = [0.6, 0.7, 0.8, 1.0, 1.2] as const;
export const PAPER_ALPHA_GRID = [0.2, 0.4, 0.6, 0.8, 1.0] as const;
export const PAPER_REL_EFFECTIVE_N = DEFAULT_LABEL_RULES["rel-effective"].n;

export function paperLabelRuleGrid(): LabelRule[] {
  return [
    { ...DEFAULT_LABEL_RULES["abs-q"] },
    ...PAPER_GAMMA_GRID.map((gamma): LabelRule => ({ rule: "rel-ratio", gamma })),
    ...PAPER_ALPHA_GRID.map((alpha): LabelRule => ({ rule: "rel-effective", alpha, n: PAPER_REL_EFFECTIVE_N })),
  ];
}
