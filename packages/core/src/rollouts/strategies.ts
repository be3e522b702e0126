import type { AbsQEvidence } from "../labels/rules";

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
export const ANNOTATION_STRATEGIES = ["fixed", "early-stop", "first-error"] as const;
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

/** Runs the named strategy on one solution of k chunks. */
export function runAnnotationStrategy(strategy: AnnotationStrategy, k: number, finalCorrect: boolean, settings: StrategySettings, sample: SampleOutcomes): Promise<StrategyOutcome> {
  switch (strategy) {
    case "fixed":
      return annotateFixed(k, settings, sample);
    case "early-stop":
      return annotateEarlyStop(k, finalCorrect, settings, sample);
    case "first-error":
      return annotateFirstError(k, finalCorrect, settings, sample);
  }
}
