import { createRng, type Rng, type Seed } from "./random";

/**
 * Percentile bootstrap over items (Efron): resample the items with
 * replacement, recompute the statistic, and read the interval off the
 * empirical quantiles of the recomputed values. Items are the unit of
 * resampling, so pass whatever is independent (solutions, not their chunks,
 * when chunks of one solution are correlated).
 *
 * Quantiles interpolate linearly between order statistics (Hyndman & Fan type
 * 7, the default of R and NumPy), so results match `numpy.percentile` on the
 * same replicate values.
 */

export type Statistic<T> = (sample: readonly T[]) => number;

export interface BootstrapOptions {
  /** Number of resamples (default 1000). */
  resamples?: number;
  /** Two-sided coverage in (0, 1) (default 0.95). */
  confidence?: number;
  /** Required: an interval that changes on every run cannot be cited. */
  seed: Seed;
}

export interface BootstrapInterval {
  /** The statistic on the original items (not the mean of the replicates). */
  estimate: number;
  lower: number;
  upper: number;
  resamples: number;
  confidence: number;
  seed: Seed;
}

export interface PairedBootstrapInterval extends BootstrapInterval {
  /** Statistic of system A on the original items; `estimate` = estimateA − estimateB. */
  estimateA: number;
  estimateB: number;
}

export const DEFAULT_BOOTSTRAP_RESAMPLES = 1000;
export const DEFAULT_BOOTSTRAP_CONFIDENCE = 0.95;

function resolveOptions(options: BootstrapOptions): { resamples: number; confidence: number; rng: Rng } {
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? DEFAULT_BOOTSTRAP_CONFIDENCE;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  }
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  return { resamples, confidence, rng: createRng(options.seed) };
}

/** Type-7 quantile of ascending `sorted`, 0 ≤ p ≤ 1. */
export function quantileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of an empty sample");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile level must be in [0, 1], got ${p}`);
  const h = (sorted.length - 1) * p;
  const below = Math.floor(h);
  const lo = sorted[below]!;
  const hi = sorted[Math.min(below + 1, sorted.length - 1)]!;
  const fraction = h - below;
  // Short-cuts keep infinite replicates from turning into NaN (∞ − ∞, ∞ · 0).
  if (fraction === 0 || lo === hi) return lo;
  return lo + (hi - lo) * fraction;
}

function checked(value: number, what: string): number {
  if (Number.isNaN(value)) {
    throw new RangeError(`the statistic returned NaN on ${what}; define it for every resample (e.g. 0 on a zero denominator)`);
  }
  return value;
}

function interval(replicates: number[], confidence: number): { lower: number; upper: number } {
  replicates.sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  return { lower: quantileSorted(replicates, tail), upper: quantileSorted(replicates, 1 - tail) };
}

function resampleIndices(rng: Rng, n: number): number[] {
  const indices = new Array<number>(n);
  for (let i = 0; i < n; i++) indices[i] = rng.nextInt(n);
  return indices;
}

/**
 * Percentile bootstrap interval for `statistic` over `items`. Identical
 * (items, statistic, resamples, seed) give an identical interval.
 */
export function bootstrapCI<T>(items: readonly T[], statistic: Statistic<T>, options: BootstrapOptions): BootstrapInterval {
  if (items.length === 0) throw new RangeError("cannot bootstrap an empty sample");
  const { resamples, confidence, rng } = resolveOptions(options);
  const estimate = checked(statistic(items), "the original items");
  const replicates: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample = resampleIndices(rng, items.length).map((i) => items[i]!);
    replicates.push(checked(statistic(sample), `resample ${r}`));
  }
  return { estimate, ...interval(replicates, confidence), resamples, confidence, seed: options.seed };
}

/**
 * Interval for statistic(A) − statistic(B) when `a[i]` and `b[i]` are two
 * systems' results on the same item i (e.g. two judge checkpoints on one
 * benchmark). Each resample draws one set of item indices for both, so the
 * item-difficulty variance shared by A and B cancels and the interval is
 * much narrower than two separate intervals would suggest. An interval
 * entirely above 0 favours A.
 */
export function pairedBootstrapCI<T>(
  a: readonly T[],
  b: readonly T[],
  statistic: Statistic<T>,
  options: BootstrapOptions,
): PairedBootstrapInterval {
  const { replicates, ...result } = pairedBootstrap(a, b, statistic, options);
  return { ...result, ...interval(replicates, result.confidence) };
}

export interface PairedBootstrapTest extends PairedBootstrapInterval {
  /**
   * Two-sided bootstrap p-value of "no difference": 2 · min(share of resampled
   * differences ≤ 0, share ≥ 0), capped at 1. It is the smallest two-sided
   * level whose percentile interval still reaches 0, so it agrees with the
   * interval: p < 1 − confidence about when the interval excludes 0. Its
   * resolution is 2 / resamples; 0 means no resample reached 0 (report it as
   * p < 1 / resamples, not as 0).
   */
  pValue: number;
}

/**
 * `pairedBootstrapCI` plus a p-value read off the same replicates: the same
 * (a, b, statistic, options) give the identical interval.
 */
export function pairedBootstrapTest<T>(
  a: readonly T[],
  b: readonly T[],
  statistic: Statistic<T>,
  options: BootstrapOptions,
): PairedBootstrapTest {
  const { replicates, ...result } = pairedBootstrap(a, b, statistic, options);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (const delta of replicates) {
    if (delta <= 0) atOrBelow += 1;
    if (delta >= 0) atOrAbove += 1;
  }
  const pValue = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / replicates.length);
  return { ...result, ...interval(replicates, result.confidence), pValue };
}

/** The resampling both paired functions share, so their intervals cannot drift apart. */
function pairedBootstrap<T>(
  a: readonly T[],
  b: readonly T[],
  statistic: Statistic<T>,
  options: BootstrapOptions,
): Omit<PairedBootstrapInterval, "lower" | "upper"> & { replicates: number[] } {
  if (a.length !== b.length) {
    throw new RangeError(`paired bootstrap needs both systems on the same items: got ${a.length} and ${b.length}`);
  }
  if (a.length === 0) throw new RangeError("cannot bootstrap an empty sample");
  const { resamples, confidence, rng } = resolveOptions(options);
  const estimateA = checked(statistic(a), "system A's original items");
  const estimateB = checked(statistic(b), "system B's original items");
  const replicates: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const indices = resampleIndices(rng, a.length);
    const statA = checked(statistic(indices.map((i) => a[i]!)), `system A's resample ${r}`);
    const statB = checked(statistic(indices.map((i) => b[i]!)), `system B's resample ${r}`);
    replicates.push(statA - statB);
  }
  return { estimate: estimateA - estimateB, estimateA, estimateB, resamples, confidence, seed: options.seed, replicates };
}
