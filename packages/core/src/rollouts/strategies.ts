import { labelConfidences, type LabelConfidenceOptions, type PrefixEvidence } from "../labels/confidence";
import type { AbsQEvidence, LabelRule } from "../labels/rules";
import { labelsFromStoredValues } from "../labels/stored-values";

/**
 * How an annotate run spends rollouts on one solution (spec §2). Each strategy
 * is written against a sampler, so the same code runs against the inference
 * cluster, a batch file's answers, or a table of outcomes in a test.
 *
 * Prefix j (1 ≤ j ≤ k) is [problem, a_1..a_j]; prefix 0 is the bare problem;
 * prefix k is the finished solution, whose outcome is known without rollouts.
 * Sample indices 0..M-1 of a prefix are its seeds in order: every strategy
 * draws the same samples `fixed` would, so it decides "some rollout of this
 * prefix succeeded" exactly as `fixed` does wherever it samples the prefix.
 */
export const ANNOTATION_STRATEGIES = ["fixed", "early-stop", "first-error", "adaptive"] as const;
export type AnnotationStrategy = (typeof ANNOTATION_STRATEGIES)[number];

/** Outcomes (reached the right answer?) of the given samples of one prefix. */
export type SampleOutcomes = (prefixLength: number, sampleIndices: readonly number[]) => Promise<boolean[]>;

/** Rollouts drawn from one prefix: how many, and how many reached the right answer. */
export interface PrefixEstimate {
  prefixLength: number;
  rollouts: number;
  correct: number;
}

/**
 * Whether first-error's monotonicity assumption held on a solution:
 * - `confirmed`: every prefix was sampled and success never came back after a prefix without one;
 * - `assumed`: some prefix was not sampled and its label was inferred from its neighbours — exact only if the true outcomes are monotone;
 * - `violated`: a success was seen after a prefix without one; every prefix was then sampled, so the labels are exact.
 */
export const MONOTONICITY = ["confirmed", "assumed", "violated"] as const;
export type Monotonicity = (typeof MONOTONICITY)[number];

export interface StrategySettings {
  /** M: seeds per prefix. */
  rollouts: number;
  /** Seeds drawn per request by early-stop and first-error before they look again. */
  batch: number;
  /** The Abs-Q evidence the run labels with; `later-prefixes` lets the cheaper strategies stop sooner. */
  evidence: AbsQEvidence;
  /** `adaptive` only. */
  adaptive?: AdaptiveSettings;
}

/** How `adaptive` decides where to spend rollouts. */
export interface AdaptiveSettings {
  /** Seeds drawn from a prefix per round (the first round draws this many from every prefix). */
  batch: number;
  /** A label below this confidence asks for another batch of each prefix it rests on. */
  targetConfidence: number;
  /** No prefix gets more rollouts than this. */
  maxRollouts: number;
  /** Every rule the run labels with: a prefix is sampled again while a label of any of them that rests on it is unsure. */
  rules: readonly LabelRule[];
  confidence: LabelConfidenceOptions;
  /** Asked before each round after the first; false stops sampling (e.g. the run's token budget is spent). */
  mayContinue?: () => boolean | Promise<boolean>;
}

export interface StrategyOutcome {
  /** Prefixes sampled (never prefix k), in prefix order. */
  estimates: PrefixEstimate[];
  /** first-error only: whether its labels rest on the monotonicity assumption. */
  monotonicity: Monotonicity | null;
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
const byPrefix = (a: PrefixEstimate, b: PrefixEstimate) => a.prefixLength - b.prefixLength;

/** `fixed`: all M seeds of every prefix 0..k-1 (Q-values for every rule). */
export async function annotateFixed(k: number, settings: StrategySettings, sample: SampleOutcomes): Promise<StrategyOutcome> {
  const estimates = await Promise.all(
    range(0, k).map(async (prefixLength) => {
      const outcomes = await sample(prefixLength, range(0, settings.rollouts));
      return { prefixLength, rollouts: settings.rollouts, correct: outcomes.filter(Boolean).length };
    }),
  );
  return { estimates, monotonicity: null };
}

/**
 * Draws the M seeds of one prefix in order, `batch` at a time, and stops after
 * the batch with the first success: "some seed of 0..M-1 succeeds" is decided
 * exactly as `fixed` decides it. Every drawn rollout is counted.
 */
export async function sampleUntilSuccess(prefixLength: number, settings: StrategySettings, sample: SampleOutcomes): Promise<PrefixEstimate> {
  let drawn = 0;
  let correct = 0;
  while (drawn < settings.rollouts && correct === 0) {
    const outcomes = await sample(prefixLength, range(drawn, Math.min(settings.batch, settings.rollouts - drawn)));
    drawn += outcomes.length;
    correct += outcomes.filter(Boolean).length;
  }
  return { prefixLength, rollouts: drawn, correct };
}

/**
 * `early-stop`, Abs-Q only.
 * own-prefix (paper): every prefix 1..k-1 is sampled, each until its own first
 * success; its labels equal `fixed`'s on the same seeds.
 * later-prefixes: a correct final answer settles every chunk; otherwise prefixes
 * are tried from the last backwards and the first with a success settles all
 * earlier ones.
 */
export async function annotateEarlyStop(k: number, finalCorrect: boolean, settings: StrategySettings, sample: SampleOutcomes): Promise<StrategyOutcome> {
  if (settings.evidence === "own-prefix") {
    const estimates = await Promise.all(range(1, k - 1).map((length) => sampleUntilSuccess(length, settings, sample)));
    return { estimates, monotonicity: null };
  }
  const estimates: PrefixEstimate[] = [];
  if (finalCorrect) return { estimates, monotonicity: null };
  for (let length = k - 1; length >= 1; length--) {
    const estimate = await sampleUntilSuccess(length, settings, sample);
    estimates.push(estimate);
    if (estimate.correct > 0) break;
  }
  return { estimates: estimates.sort(byPrefix), monotonicity: null };
}

/** Whether a success comes after a prefix without one, among the known outcomes (prefix → success). */
export function outcomesAreMonotone(known: ReadonlyMap<number, boolean>): boolean {
  let failed = false;
  for (const length of [...known.keys()].sort((a, b) => a - b)) {
    const success = known.get(length)!;
    if (failed && success) return false;
    if (!success) failed = true;
  }
  return true;
}

/**
 * `first-error`, Abs-Q only: finds the first prefix without a success by binary
 * search (OmegaPRM), about log2(k) prefixes instead of k, each sampled until
 * its first success. The search assumes success is monotone along the
 * solution; it checks what it can:
 * 1. Confirmation: the prefix after the first one without a success is sampled
 *    too; under monotonicity it has no success either.
 * 2. Every outcome seen (searched prefixes, the confirmation, the solution's own
 *    answer) is checked for a success after a failure. If there is one, the
 *    assumption is false for this solution, and every prefix not yet sampled
 *    is sampled: the labels are then exact (`violated`).
 * 3. Otherwise a prefix it never sampled takes its label from its neighbours
 *    (`assumed`), unless every prefix was sampled (`confirmed`).
 * A solution with a correct final answer has no failure to search for: under
 * the assumption every chunk is Positive (`assumed`; with later-prefixes
 * evidence this is exact, so nothing is flagged).
 */
export async function annotateFirstError(k: number, finalCorrect: boolean, settings: StrategySettings, sample: SampleOutcomes): Promise<StrategyOutcome> {
  const estimates: PrefixEstimate[] = [];
  const known = new Map<number, boolean>([[k, finalCorrect]]);
  const probe = async (length: number): Promise<boolean> => {
    const cached = known.get(length);
    if (cached !== undefined) return cached;
    const estimate = await sampleUntilSuccess(length, settings, sample);
    estimates.push(estimate);
    known.set(length, estimate.correct > 0);
    return estimate.correct > 0;
  };
  const allSampled = () => range(1, k - 1).every((length) => known.has(length));
  if (finalCorrect) {
    if (settings.evidence === "later-prefixes") return { estimates, monotonicity: null };
    return { estimates, monotonicity: allSampled() ? "confirmed" : "assumed" };
  }
  // Invariant: prefix `hi` has no success; prefix `lo` has one (or lo = 0: the bare problem, not sampled).
  let lo = 0;
  let hi = k;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await probe(mid)) lo = mid;
    else hi = mid;
  }
  if (hi + 1 < k) await probe(hi + 1);
  if (!outcomesAreMonotone(known)) {
    for (const length of range(1, k - 1)) await probe(length);
    return { estimates: estimates.sort(byPrefix), monotonicity: "violated" };
  }
  return { estimates: estimates.sort(byPrefix), monotonicity: allSampled() ? "confirmed" : "assumed" };
}

/**
 * The prefixes whose labels are not yet sure enough: for every rule and every
 * chunk i (1-based) whose label's confidence is below the target, prefix i
 * (Abs-Q and the relative rules) and prefix i−1 (the relative rules). The
 * finished solution (prefix k) is known and never sampled.
 */
export function unsurePrefixes(k: number, finalCorrect: boolean, counts: readonly PrefixEstimate[], settings: AdaptiveSettings): Set<number> {
  const evidence: PrefixEvidence[] = [...counts.map((c) => ({ correct: c.correct, rollouts: c.rollouts })), { known: finalCorrect ? 1 : 0 }];
  const values = { q0: counts[0]!.correct / counts[0]!.rollouts, q: [...counts.slice(1).map((c) => c.correct / c.rollouts), finalCorrect ? 1 : 0] };
  const unsure = new Set<number>();
  for (const rule of settings.rules) {
    const labels = labelsFromStoredValues(rule, values)!;
    labelConfidences(rule, labels, evidence, settings.confidence).forEach((confidence, index) => {
      if (confidence === null || confidence >= settings.targetConfidence) return;
      const i = index + 1;
      if (i < k) unsure.add(i);
      if (rule.rule !== "abs-q") unsure.add(i - 1);
    });
  }
  return unsure;
}

/**
 * `adaptive` (beyond the paper; docs/DOMAIN.md): every prefix 0..k-1 gets a
 * first batch of seeds; after each round, every prefix that a label below the
 * target confidence rests on (under any of the run's rules) gets the next
 * batch of its seeds, until its labels are sure or it has `maxRollouts`.
 * Seeds are drawn in order, so the same config draws the same rollouts, and
 * the stored counts are the real ones: every rule can be relabelled later.
 */
export async function annotateAdaptive(k: number, finalCorrect: boolean, settings: StrategySettings, sample: SampleOutcomes): Promise<StrategyOutcome> {
  const adaptive = settings.adaptive;
  if (!adaptive) throw new RangeError("the adaptive strategy needs its settings (batch, targetConfidence, maxRollouts, rules)");
  const counts: PrefixEstimate[] = range(0, k).map((prefixLength) => ({ prefixLength, rollouts: 0, correct: 0 }));
  const draw = async (prefixes: readonly number[]) => {
    await Promise.all(
      prefixes.map(async (length) => {
        const count = counts[length]!;
        const outcomes = await sample(length, range(count.rollouts, Math.min(adaptive.batch, adaptive.maxRollouts - count.rollouts)));
        count.rollouts += outcomes.length;
        count.correct += outcomes.filter(Boolean).length;
      }),
    );
  };
  await draw(range(0, k));
  for (;;) {
    const next = [...unsurePrefixes(k, finalCorrect, counts, adaptive)].filter((length) => counts[length]!.rollouts < adaptive.maxRollouts).sort((a, b) => a - b);
    if (next.length === 0) break;
    if (adaptive.mayContinue && !(await adaptive.mayContinue())) break;
    await draw(next);
  }
  return { estimates: counts, monotonicity: null };
}

/** Runs the named strategy on one solution of k chunks. */
export function runAnnotationStrategy(strategy: AnnotationStrategy, k: number, finalCorrect: boolean, settings: StrategySettings, sample: SampleOutcomes): Promise<StrategyOutcome> {
  switch (strategy) {
    case "fixed":
      return annotateFixed(k, settings, sample);
    case "early-stop":
      return annotateEarlyStop(k, finalCorrect, settings, sample);
    case "first-error":
      return annotateFirstError(k, finalCorrect, settings, sample);
    case "adaptive":
      return annotateAdaptive(k, finalCorrect, settings, sample);
  }
}
