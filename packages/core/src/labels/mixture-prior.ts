import { z } from "zod";
import { logBeta, logGamma } from "../stats/beta";
import { minimizeNelderMead } from "../stats/nelder-mead";

/**
 * A fitted prior for the Q-values of a population of prefixes (the named
 * confidence option `prior: "mixture"`; docs/DOMAIN.md "Label confidence"):
 * with probability `zero` a prefix can never succeed (Q = 0), with probability
 * `one` it always does (Q = 1), otherwise Q ~ Beta(a, b). Real and simulated
 * policies both have such prefixes — the step after an unrecoverable error,
 * the last steps of a solution already settled — and a continuous prior gives
 * them little mass, so zero successes of m always leave "no success possible"
 * in doubt. The weights and the Beta part are fitted to a population's counts
 * by maximum marginal likelihood (`fitMixturePrior`, e.g. on a pilot run).
 */
export const mixturePriorSchema = z
  .object({
    /** Share of prefixes whose Q is exactly 0. */
    zero: z.number().min(0).max(1),
    /** Share of prefixes whose Q is exactly 1. */
    one: z.number().min(0).max(1),
    /** The Beta part's parameters. */
    a: z.number().positive().max(1e4),
    b: z.number().positive().max(1e4),
  })
  .refine((p) => p.zero + p.one < 1, { message: "zero + one must be below 1 (the rest is the Beta part's weight)", path: ["one"] });
export type MixturePrior = z.output<typeof mixturePriorSchema>;

/** Rollout counts of one prefix. */
export interface PrefixCount {
  correct: number;
  rollouts: number;
}

const logChoose = (m: number, s: number) => logGamma(m + 1) - logGamma(s + 1) - logGamma(m - s + 1);

/** log P(s of m | prior), the marginal likelihood of one prefix's counts. */
export function mixtureLogLikelihood(prior: MixturePrior, count: PrefixCount): number {
  const { correct: s, rollouts: m } = count;
  const continuous = 1 - prior.zero - prior.one;
  let total = continuous > 0 ? continuous * Math.exp(logChoose(m, s) + logBeta(prior.a + s, prior.b + m - s) - logBeta(prior.a, prior.b)) : 0;
  if (s === 0) total += prior.zero;
  if (s === m) total += prior.one;
  return Math.log(total);
}

/**
 * The posterior of a prefix's Q under a mixture prior: point masses at 0 (only
 * after no success) and 1 (only after no failure) with their posterior weights,
 * and the Beta part updated by the counts.
 */
export function mixturePosteriorParts(prior: MixturePrior, count: PrefixCount): { weight: number; at?: 0 | 1; a?: number; b?: number }[] {
  const { correct: s, rollouts: m } = count;
  const continuous = 1 - prior.zero - prior.one;
  const parts: { weight: number; at?: 0 | 1; a?: number; b?: number }[] = [];
  // Each part's marginal likelihood of the counts times its prior weight (the binomial coefficient is 1 where a point mass can have produced them).
  if (continuous > 0) parts.push({ weight: continuous * Math.exp(logChoose(m, s) + logBeta(prior.a + s, prior.b + m - s) - logBeta(prior.a, prior.b)), a: prior.a + s, b: prior.b + m - s });
  if (s === 0 && prior.zero > 0) parts.push({ weight: prior.zero, at: 0 });
  if (s === m && prior.one > 0) parts.push({ weight: prior.one, at: 1 });
  const total = parts.reduce((sum, p) => sum + p.weight, 0);
  if (!(total > 0)) throw new RangeError(`the mixture prior gives ${s} of ${m} no probability`);
  return parts.filter((p) => p.weight > 0).map((p) => ({ ...p, weight: p.weight / total }));
}

export interface FittedMixturePrior extends MixturePrior {
  /** Prefixes the fit used. */
  prefixes: number;
  /** Σ log P(counts | prior) at the fit. */
  logLikelihood: number;
}

const softmax3 = (x: number, y: number) => {
  const top = Math.max(x, y, 0);
  const ex = Math.exp(x - top);
  const ey = Math.exp(y - top);
  const ez = Math.exp(-top);
  const sum = ex + ey + ez;
  return [ex / sum, ey / sum] as const;
};

/**
 * Fits a mixture prior to counts by maximum marginal likelihood (Nelder–Mead
 * over the two weights' logits and log a, log b, from several starts; the
 * counts are grouped by (s, m), so the cost does not grow with their number).
 * Deterministic. Needs prefixes with at least one rollout.
 */
export function fitMixturePrior(counts: readonly PrefixCount[]): FittedMixturePrior {
  const groups = new Map<string, { count: PrefixCount; n: number }>();
  for (const c of counts) {
    if (!Number.isInteger(c.rollouts) || c.rollouts < 1 || !Number.isInteger(c.correct) || c.correct < 0 || c.correct > c.rollouts) {
      throw new RangeError(`counts must be s of m with m ≥ 1 and 0 ≤ s ≤ m, got ${c.correct}/${c.rollouts}`);
    }
    const key = `${c.correct}/${c.rollouts}`;
    const group = groups.get(key);
    if (group) group.n += 1;
    else groups.set(key, { count: { correct: c.correct, rollouts: c.rollouts }, n: 1 });
  }
  if (groups.size === 0) throw new RangeError("fitting a prior needs the counts of at least one sampled prefix");
  const list = [...groups.values()];
  const clampLog = (x: number) => Math.min(Math.log(1e4), Math.max(Math.log(0.02), x));
  const priorOf = ([l0, l1, la, lb]: readonly number[]): MixturePrior => {
    const [zero, one] = softmax3(Math.min(30, Math.max(-30, l0!)), Math.min(30, Math.max(-30, l1!)));
    return { zero, one, a: Math.exp(clampLog(la!)), b: Math.exp(clampLog(lb!)) };
  };
  const negative = (x: readonly number[]) => {
    const prior = priorOf(x);
    let total = 0;
    for (const { count, n } of list) total += n * mixtureLogLikelihood(prior, count);
    return Number.isFinite(total) ? -total : Number.MAX_VALUE;
  };
  let best: { x: number[]; value: number } | null = null;
  for (const start of [
    [-1, -1, 0, 0],
    [-3, -3, Math.log(2), Math.log(2)],
    [0, -2, Math.log(0.5), Math.log(0.5)],
    [-2, 0, Math.log(3), Math.log(1)],
  ]) {
    const result = minimizeNelderMead(negative, start, { step: 1, maxIterations: 4000, tolerance: 1e-12 });
    if (!best || result.value < best.value) best = result;
  }
  const prior = priorOf(best!.x);
  return { ...prior, prefixes: counts.length, logLikelihood: -best!.value };
}
