import { z } from "zod";
import { betaCdf, logBeta } from "../stats/beta";
import { integrate } from "../stats/quadrature";
import { LABEL_EPSILON, type Label } from "./label";
import { mixturePosteriorParts, mixturePriorSchema, type MixturePrior } from "./mixture-prior";
import { bestOfNValue } from "./q-values";
import { applyLabelRule, type LabelRule } from "./rules";

/**
 * Label confidence (beyond the paper; docs/DOMAIN.md "Label confidence"): how
 * sure a Monte-Carlo label is, given how many rollouts its Q-values rest on.
 *
 * Prefix j with s_j correct of m_j rollouts has the posterior
 * Q_j ~ Beta(s_j + c, m_j − s_j + c), c = ½ under the Jeffreys prior (the
 * default) or 1 under the uniform prior, independently across prefixes. A
 * prefix whose value is known (the finished solution inside a run: its own
 * outcome) is a point mass. A chunk's confidence under a rule is the posterior
 * probability that the rule applied to the true values (Q_{i−1}, Q_i) gives
 * the label the rule gave on the estimates.
 *
 * The true rule keeps the estimate rule's conventions about zero. On estimates
 * "0 of m" is an exact 0 (no rollout succeeded); a true Q is never exactly 0
 * under a continuous prior, so a true value at or below the floor ε (default
 * 0.01) is read as that 0 (`trueRuleLabels`: the rule applied to the true
 * values with every value ≤ ε set to 0):
 * - Abs-Q: true Positive iff Q_i > ε; with later-prefixes evidence, iff Q_j > ε for some j ≥ i;
 * - Rel-Ratio(γ): when Q_{i−1} ≤ ε (the estimate's "Q_{i−1} = 0: Positive iff
 *   Q_i > 0"), true Positive iff Q_i > ε; otherwise iff Q_i > γ·Q_{i−1} and Q_i > ε;
 * - Rel-Effective(α, n): true Positive iff Q_i > ε and (Q_{i−1} ≤ ε or
 *   Q_i + α(μ(Q_i) − μ(Q_{i−1})) > 0), μ(q) = 1 − (1 − q)^n;
 * where the "Q_i > ε" mirrors the estimate's "0 of m is Negative under every
 * rule". So every rule's confidence rises with evidence: 0 of m → 0 of m is a
 * Negative whose confidence tends to 1 as m grows, as Abs-Q's does.
 *
 * Both relative rules are then a threshold T(Q_{i−1}) on Q_i that never
 * decreases with Q_{i−1}: T(p) = ε for p ≤ ε, max(ε, τ(p)) above, τ(p) = γ·p or
 * Rel-Effective's root of t + α·μ(t) = α·μ(p). The probability is the part of
 * Q_{i−1}'s posterior where T is the floor ε (a product of two CDFs) plus one
 * integral over the rest (adaptive Gauss–Kronrod after p = sin²θ, which removes
 * the density's endpoint singularities; error below 1e-8), cut at the points
 * where T leaves the floor and where it reaches 1, so the integrand is smooth.
 */

export const CONFIDENCE_PRIORS = ["jeffreys", "uniform", "mixture"] as const;
export type ConfidencePrior = (typeof CONFIDENCE_PRIORS)[number];
export const DEFAULT_CONFIDENCE_PRIOR: ConfidencePrior = "jeffreys";
/**
 * The floor ε of every rule's true values: a true Q at or below it counts as 0,
 * "no rollout can succeed" (Abs-Q's Q > 0, the relative rules' Q_{i−1} = 0 and Q_i = 0).
 */
export const DEFAULT_ABS_Q_EPSILON = 0.01;

/** The conjugate priors' pseudo-count added to both successes and failures. */
const PRIOR_PSEUDO_COUNT: Record<Exclude<ConfidencePrior, "mixture">, number> = { jeffreys: 0.5, uniform: 1 };

export const labelConfidenceOptionsSchema = z
  .object({
    /**
     * Prior of every prefix's Q: jeffreys = Beta(½, ½) (default), uniform = Beta(1, 1), mixture = point masses at
     * 0 and 1 plus a Beta part, with the weights and parameters given in `mixture` (fitted to a pilot run's counts).
     */
    prior: z.enum(CONFIDENCE_PRIORS).default(DEFAULT_CONFIDENCE_PRIOR),
    /**
     * The floor ε: a true Q at or below it is read as 0 by every rule (Abs-Q: true Positive iff Q > ε; the relative
     * rules: Q_{i−1} ≤ ε is the zero previous value, Q_i ≤ ε is Negative). Named for Abs-Q, where it was first used.
     */
    absQEpsilon: z.number().gt(0).lt(1).default(DEFAULT_ABS_Q_EPSILON),
    /** The mixture prior's parameters; only with prior "mixture". */
    mixture: mixturePriorSchema.optional(),
  })
  .superRefine((options, ctx) => {
    if (options.prior === "mixture" && !options.mixture) ctx.addIssue({ code: "custom", path: ["mixture"], message: 'prior "mixture" needs its parameters {zero, one, a, b} (fit them with `stepwiser prior fit --run RUN`)' });
    if (options.prior !== "mixture" && options.mixture) ctx.addIssue({ code: "custom", path: ["mixture"], message: `mixture parameters are read only with prior "mixture", not "${options.prior}"` });
  });
export type LabelConfidenceOptions = z.output<typeof labelConfidenceOptionsSchema>;
export const DEFAULT_LABEL_CONFIDENCE_OPTIONS: LabelConfidenceOptions = { prior: DEFAULT_CONFIDENCE_PRIOR, absQEpsilon: DEFAULT_ABS_Q_EPSILON };

/** What is known about one prefix's Q: rollouts drawn from it, or its value itself (the finished solution's outcome). */
export type PrefixEvidence = { correct: number; rollouts: number } | { known: number };

/** Posterior of one prefix's Q: a Beta, a known value, or (under a mixture prior) a weighted mix of those. */
export type SimplePosterior = { kind: "beta"; a: number; b: number } | { kind: "known"; value: number };
export type QPosterior = SimplePosterior | { kind: "mixture"; parts: { weight: number; q: SimplePosterior }[] };

/**
 * The posterior of a prefix's Q from its evidence. Throws a RangeError for
 * counts that are not s of m with m ≥ 1, and for prior "mixture" without its
 * parameters.
 */
export function qPosterior(evidence: PrefixEvidence, prior: ConfidencePrior = DEFAULT_CONFIDENCE_PRIOR, mixture?: MixturePrior): QPosterior {
  if ("known" in evidence) {
    if (!(evidence.known >= 0 && evidence.known <= 1)) throw new RangeError(`a known Q-value lies in [0, 1], got ${evidence.known}`);
    return { kind: "known", value: evidence.known };
  }
  const { correct, rollouts } = evidence;
  if (!Number.isInteger(rollouts) || rollouts < 1) throw new RangeError(`a prefix needs at least one rollout, got ${rollouts}`);
  if (!Number.isInteger(correct) || correct < 0 || correct > rollouts) throw new RangeError(`correct rollouts must be an integer from 0 to ${rollouts}, got ${correct}`);
  if (prior === "mixture") {
    if (!mixture) throw new RangeError('prior "mixture" needs its parameters {zero, one, a, b}');
    const parts = mixturePosteriorParts(mixture, evidence).map((p): { weight: number; q: SimplePosterior } =>
      p.at !== undefined ? { weight: p.weight, q: { kind: "known", value: p.at } } : { weight: p.weight, q: { kind: "beta", a: p.a!, b: p.b! } },
    );
    return parts.length === 1 ? parts[0]!.q : { kind: "mixture", parts };
  }
  const c = PRIOR_PSEUDO_COUNT[prior];
  return { kind: "beta", a: correct + c, b: rollouts - correct + c };
}

/** The (weight, simple posterior) parts of a posterior. */
function partsOf(q: QPosterior): { weight: number; q: SimplePosterior }[] {
  return q.kind === "mixture" ? q.parts : [{ weight: 1, q }];
}

/** P(Q ≤ t). */
function cdf(q: QPosterior, t: number): number {
  if (q.kind === "mixture") return q.parts.reduce((sum, p) => sum + p.weight * cdf(p.q, t), 0);
  return q.kind === "known" ? (q.value <= t ? 1 : 0) : betaCdf(t, q.a, q.b);
}

/** P(Q > t). */
function survival(q: QPosterior, t: number): number {
  return 1 - cdf(q, t);
}

/** E[h(Q); from < Q ≤ to] under a Beta posterior, integrated in θ with Q = sin²θ (0 ≤ from < to ≤ 1). */
function expectation(q: Extract<SimplePosterior, { kind: "beta" }>, h: (p: number) => number, from = 0, to = 1): number {
  const { a, b } = q;
  const logNorm = Math.log(2) - logBeta(a, b);
  const f = (theta: number) => {
    const s = Math.sin(theta);
    const c = Math.cos(theta);
    if (s <= 0 || c <= 0) return 0;
    const logWeight = logNorm + (2 * a - 1) * Math.log(s) + (2 * b - 1) * Math.log(c);
    return Math.exp(logWeight) * h(s * s);
  };
  const theta = (p: number) => Math.asin(Math.sqrt(p));
  return integrate(f, theta(from), theta(to), { tolerance: 1e-9, initialPanels: 16, maxPanels: 4000 }).value;
}

/** Rel-Effective's threshold: the Q_i at which Q_i + α·μ(Q_i) equals α·μ(Q_{i−1}) (0 when α = 0). */
function relEffectiveThreshold(previous: number, alpha: number, n: number): number {
  const target = alpha * bestOfNValue(previous, n);
  if (target <= 0) return 0;
  // g(t) = t + α·μ(t) is increasing and concave on [0, 1] with g' ≤ 1 + αn, so t₀ = target / (1 + αn) lies
  // left of the root and Newton's steps from there rise to it monotonically.
  let t = target / (1 + alpha * n);
  for (let i = 0; i < 100; i++) {
    const value = t + alpha * bestOfNValue(t, n) - target;
    const slope = 1 + alpha * n * (1 - t) ** (n - 1);
    const next = Math.min(previous, t - value / slope);
    if (Math.abs(next - t) < 1e-15) return next;
    t = next;
  }
  return t;
}

type RelativeRule = Exclude<LabelRule, { rule: "abs-q" }>;

/** The relative rule's own threshold τ(p) on Q_i for Q_{i−1} = p > ε: γ·p (Rel-Ratio) or Rel-Effective's root. */
function ruleThreshold(rule: RelativeRule, previous: number): number {
  return rule.rule === "rel-ratio" ? rule.gamma * previous : relEffectiveThreshold(previous, rule.alpha, rule.n);
}

/**
 * The true rule's threshold on Q_i: true Positive iff Q_i > T(Q_{i−1}), with
 * T(p) = ε for p ≤ ε (the zero previous value) and max(ε, τ(p)) above it.
 */
function trueThreshold(rule: RelativeRule, previous: number, epsilon: number): number {
  return previous <= epsilon ? epsilon : Math.max(epsilon, ruleThreshold(rule, previous));
}

/**
 * The largest previous value p for which a current value c still clears the
 * rule's own threshold (Rel-Ratio: c > γp; Rel-Effective: c + α(μ(c) − μ(p)) > 0),
 * i.e. τ(p) < c exactly for p below it. Infinity when every p qualifies,
 * −Infinity when none does.
 */
function previousCutForCurrent(rule: RelativeRule, c: number): number {
  if (rule.rule === "rel-ratio") return c <= 0 ? -Infinity : c / rule.gamma;
  const { alpha, n } = rule;
  if (alpha === 0) return c > 0 ? Infinity : -Infinity;
  const y = (c + alpha * bestOfNValue(c, n)) / alpha;
  if (y >= 1) return Infinity;
  if (y <= 0) return -Infinity;
  return 1 - (1 - y) ** (1 / n);
}

/** P(Q ≤ x) for a cut that may be ±Infinity. */
function cdfAt(q: QPosterior, x: number): number {
  return x === Infinity ? 1 : x === -Infinity ? 0 : cdf(q, x);
}

/**
 * Both posteriors Beta: one integral, the costly case. Its value depends only
 * on the rule, ε and the four Beta parameters, which are counts plus the prior's
 * pseudo-count and so repeat endlessly across the prefixes of a run (and across
 * the simulated solutions of `stepwiser plan annotate`'s adaptive estimate):
 * kept in a bounded memo, emptied when full. Pure, so the memo changes no value.
 */
const RELATIVE_MEMO_LIMIT = 100_000;
const relativeMemo = new Map<string, number>();

/** Posterior probability that a relative rule's true label is Positive. */
function relativeTruePositive(rule: RelativeRule, previous: SimplePosterior, current: SimplePosterior, epsilon: number): number {
  if (previous.kind === "beta" && current.kind === "beta") {
    const parameters = rule.rule === "rel-ratio" ? `${rule.gamma}` : `${rule.alpha},${rule.n}`;
    const key = `${rule.rule}|${parameters}|${epsilon}|${previous.a},${previous.b}|${current.a},${current.b}`;
    const known = relativeMemo.get(key);
    if (known !== undefined) return known;
    const value = relativeTruePositiveUncached(rule, previous, current, epsilon);
    if (relativeMemo.size >= RELATIVE_MEMO_LIMIT) relativeMemo.clear();
    relativeMemo.set(key, value);
    return value;
  }
  return relativeTruePositiveUncached(rule, previous, current, epsilon);
}

function relativeTruePositiveUncached(rule: RelativeRule, previous: SimplePosterior, current: SimplePosterior, epsilon: number): number {
  if (previous.kind === "known") return survival(current, trueThreshold(rule, previous.value, epsilon));
  if (current.kind === "known") {
    // c clears T(p) iff c > ε and (p ≤ ε or τ(p) < c): p below max(ε, cut(c)).
    const c = current.value;
    if (c <= epsilon) return 0;
    return cdfAt(previous, Math.max(epsilon, previousCutForCurrent(rule, c)));
  }
  // T(p) = ε up to the knee where τ reaches ε (never below ε itself), then τ(p), which reaches 1 at the top (beyond it
  // no Q_i clears it). Below the knee the two prefixes' events factor; above it one smooth integral.
  const knee = Math.min(1, Math.max(epsilon, previousCutForCurrent(rule, epsilon)));
  const top = Math.min(1, previousCutForCurrent(rule, 1));
  const floorPart = cdf(previous, knee) * survival(current, epsilon);
  if (!(top > knee)) return floorPart;
  return floorPart + expectation(previous, (p) => survival(current, ruleThreshold(rule, p)), knee, top);
}

/**
 * Posterior probability that the rule's true label of a chunk is Positive.
 * `previous` is Q_{i−1}'s posterior (needed by the relative rules), `current`
 * Q_i's, `later` those of the prefixes after it (Abs-Q with later-prefixes
 * evidence only; leave out prefixes that were not sampled).
 */
export function truePositiveProbability(
  rule: LabelRule,
  previous: QPosterior | null,
  current: QPosterior,
  later: readonly QPosterior[] = [],
  options: LabelConfidenceOptions = DEFAULT_LABEL_CONFIDENCE_OPTIONS,
): number {
  if (rule.rule === "abs-q") {
    const epsilon = options.absQEpsilon;
    if (rule.evidence === "own-prefix") return survival(current, epsilon);
    return 1 - [current, ...later].reduce((none, q) => none * cdf(q, epsilon), 1);
  }
  if (!previous) throw new RangeError(`${rule.rule} needs the previous prefix's value`);
  let total = 0;
  for (const p of partsOf(previous)) for (const c of partsOf(current)) total += p.weight * c.weight * relativeTruePositive(rule, p.q, c.q, options.absQEpsilon);
  return Math.min(1, Math.max(0, total));
}

/**
 * The true rule itself: the labels the confidence is the probability of, given
 * the true values (Q_0, then Q_i after each chunk, the last one the solution's
 * outcome). It is the rule applied to those values with every value at or
 * below ε read as 0, the estimate's "no rollout succeeded" (Abs-Q: Q_i > ε;
 * Rel-Ratio and Rel-Effective: Q_{i−1} ≤ ε takes the zero-previous convention,
 * Q_i ≤ ε is Negative). Where the true values are known (a simulation) this is
 * the truth a calibration is measured against.
 */
export function trueRuleLabels(rule: LabelRule, q0: number, q: readonly number[], epsilon: number = DEFAULT_ABS_Q_EPSILON): Label[] {
  if (!(epsilon > 0 && epsilon < 1)) throw new RangeError(`epsilon must lie in (0, 1), got ${epsilon}`);
  const floored = (value: number) => (value <= epsilon ? 0 : value);
  return applyLabelRule(rule, floored(q0), q.map(floored));
}

/** The confidence of a label: the posterior probability of its being the true label. */
export function confidenceOfLabel(label: Label, truePositive: number): number {
  return label === "Positive" ? truePositive : 1 - truePositive;
}

/**
 * The confidence of every chunk's label under one rule. `prefixes[j]` is the
 * evidence of prefix j (0 = the bare problem, k = the finished solution), null
 * where the prefix was not sampled; `labels[i]` is chunk i+1's label (0-based
 * array, k entries). A label whose evidence is missing gets null; with
 * later-prefixes Abs-Q a Positive label counts only the sampled later prefixes
 * (a lower bound), a Negative one needs them all.
 */
export function labelConfidences(
  rule: LabelRule,
  labels: readonly Label[],
  prefixes: readonly (PrefixEvidence | null)[],
  options: LabelConfidenceOptions = DEFAULT_LABEL_CONFIDENCE_OPTIONS,
): (number | null)[] {
  if (prefixes.length !== labels.length + 1) throw new RangeError(`${labels.length} labels need ${labels.length + 1} prefixes (the bare problem and one per chunk), got ${prefixes.length}`);
  const posteriors = prefixes.map((p) => (p ? qPosterior(p, options.prior, options.mixture) : null));
  return labels.map((label, index) => {
    const i = index + 1;
    const current = posteriors[i];
    if (!current) return null;
    let later: QPosterior[] = [];
    if (rule.rule === "abs-q" && rule.evidence === "later-prefixes") {
      const after = posteriors.slice(i + 1);
      if (label === "Negative" && after.some((p) => p === null)) return null;
      later = after.filter((p): p is QPosterior => p !== null);
    }
    const previous = rule.rule === "abs-q" ? null : posteriors[i - 1];
    if (rule.rule !== "abs-q" && !previous) return null;
    return confidenceOfLabel(label, truePositiveProbability(rule, previous ?? null, current, later, options));
  });
}

/** The estimate s/m of sampled evidence, or the known value. */
export function estimateOf(evidence: PrefixEvidence): number {
  return "known" in evidence ? evidence.known : evidence.correct / evidence.rollouts;
}

/** The lowest confidence among labels (null entries skipped); null when there is none. */
export function lowestConfidence(confidences: readonly (number | null)[]): number | null {
  let lowest: number | null = null;
  for (const c of confidences) if (c !== null && (lowest === null || c < lowest)) lowest = c;
  return lowest;
}

/** Confidence histogram bins: [0, 0.1), …, [0.9, 1.0]; returns counts per bin. */
export const CONFIDENCE_BINS = 10;
export function confidenceBin(confidence: number): number {
  return Math.min(CONFIDENCE_BINS - 1, Math.max(0, Math.floor(confidence * CONFIDENCE_BINS + LABEL_EPSILON)));
}
