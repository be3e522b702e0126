import { z } from "zod";
import { betaCdf, logBeta } from "../stats/beta";
import { integrate } from "../stats/quadrature";
import { LABEL_EPSILON, type Label } from "./label";
import { mixturePosteriorParts, mixturePriorSchema, type MixturePrior } from "./mixture-prior";
import { bestOfNValue } from "./q-values";
import type { LabelRule } from "./rules";

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
 * the label the rule gave on the estimates:
 * - Rel-Ratio(γ): true Positive iff Q_i > γ·Q_{i−1};
 * - Rel-Effective(α, n): true Positive iff Q_i + α(μ(Q_i) − μ(Q_{i−1})) > 0, μ(q) = 1 − (1 − q)^n;
 * - Abs-Q: true Positive iff Q_i > ε (ε = 0.01 by default: under a continuous
 *   prior Q_i > 0 is almost sure, so "some rollout can succeed" needs a floor);
 *   with later-prefixes evidence, iff Q_j > ε for some j ≥ i.
 * Both relative rules are a threshold on Q_i that grows with Q_{i−1}, so the
 * probability is one integral over Q_{i−1}'s posterior (adaptive Gauss–Kronrod
 * after p = sin²θ, which removes the density's endpoint singularities; error
 * below 1e-8).
 */

export const CONFIDENCE_PRIORS = ["jeffreys", "uniform", "mixture"] as const;
export type ConfidencePrior = (typeof CONFIDENCE_PRIORS)[number];
export const DEFAULT_CONFIDENCE_PRIOR: ConfidencePrior = "jeffreys";
/** Abs-Q's floor ε: a true Q at or below it counts as "no rollout can succeed". */
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
    /** Abs-Q's ε: true Positive iff Q > ε. */
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

/** E[h(Q)] under a Beta posterior, integrated in θ with Q = sin²θ. */
function expectation(q: Extract<SimplePosterior, { kind: "beta" }>, h: (p: number) => number): number {
  const { a, b } = q;
  const logNorm = Math.log(2) - logBeta(a, b);
  const f = (theta: number) => {
    const s = Math.sin(theta);
    const c = Math.cos(theta);
    if (s <= 0 || c <= 0) return 0;
    const logWeight = logNorm + (2 * a - 1) * Math.log(s) + (2 * b - 1) * Math.log(c);
    return Math.exp(logWeight) * h(s * s);
  };
  return integrate(f, 0, Math.PI / 2, { tolerance: 1e-9, initialPanels: 16, maxPanels: 4000 }).value;
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

/**
 * The largest previous value p for which a known current value c is still a
 * true Positive (Rel-Ratio: c > γp; Rel-Effective: c + α(μ(c) − μ(p)) > 0).
 * Infinity when every p qualifies, −Infinity when none does.
 */
function previousCutForKnownCurrent(rule: Exclude<LabelRule, { rule: "abs-q" }>, c: number): number {
  if (rule.rule === "rel-ratio") return c <= 0 ? -Infinity : c / rule.gamma;
  const { alpha, n } = rule;
  if (alpha === 0) return c > 0 ? Infinity : -Infinity;
  const y = (c + alpha * bestOfNValue(c, n)) / alpha;
  if (y >= 1) return Infinity;
  if (y <= 0) return -Infinity;
  return 1 - (1 - y) ** (1 / n);
}

/**
 * Both posteriors Beta: one integral, the costly case. Its value depends only
 * on the rule and the four Beta parameters, which are counts plus the prior's
 * pseudo-count and so repeat endlessly across the prefixes of a run (and across
 * the simulated solutions of `stepwiser plan annotate`'s adaptive estimate):
 * kept in a bounded memo, emptied when full. Pure, so the memo changes no value.
 */
const RELATIVE_MEMO_LIMIT = 100_000;
const relativeMemo = new Map<string, number>();

/** Posterior probability that a relative rule's true label is Positive. */
function relativeTruePositive(rule: Exclude<LabelRule, { rule: "abs-q" }>, previous: SimplePosterior, current: SimplePosterior): number {
  if (previous.kind === "beta" && current.kind === "beta") {
    const parameters = rule.rule === "rel-ratio" ? `${rule.gamma}` : `${rule.alpha},${rule.n}`;
    const key = `${rule.rule}|${parameters}|${previous.a},${previous.b}|${current.a},${current.b}`;
    const known = relativeMemo.get(key);
    if (known !== undefined) return known;
    const value = relativeTruePositiveUncached(rule, previous, current);
    if (relativeMemo.size >= RELATIVE_MEMO_LIMIT) relativeMemo.clear();
    relativeMemo.set(key, value);
    return value;
  }
  return relativeTruePositiveUncached(rule, previous, current);
}

function relativeTruePositiveUncached(rule: Exclude<LabelRule, { rule: "abs-q" }>, previous: SimplePosterior, current: SimplePosterior): number {
  const threshold = (p: number) => (rule.rule === "rel-ratio" ? rule.gamma * p : relEffectiveThreshold(p, rule.alpha, rule.n));
  if (previous.kind === "known") return survival(current, threshold(previous.value));
  if (current.kind === "known") {
    const cut = previousCutForKnownCurrent(rule, current.value);
    return cut === Infinity ? 1 : cut === -Infinity ? 0 : cdf(previous, cut);
  }
  return expectation(previous, (p) => {
    const t = threshold(p);
    return t >= 1 ? 0 : survival(current, t);
  });
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
  for (const p of partsOf(previous)) for (const c of partsOf(current)) total += p.weight * c.weight * relativeTruePositive(rule, p.q, c.q);
  return Math.min(1, Math.max(0, total));
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
