import { DEFAULT_BOOTSTRAP_CONFIDENCE, DEFAULT_BOOTSTRAP_RESAMPLES, quantileSorted, type BootstrapInterval, type BootstrapOptions, type PairedBootstrapTest, type Statistic } from "./bootstrap";
import { createRng, type Rng } from "./random";

/**
 * Percentile bootstraps that keep a structure of the items fixed: several
 * statistics read off one resample (`bootstrapIntervals`), and resampling
 * within strata (`stratifiedBootstrapCI`, `pairedStratifiedBootstrapTest`).
 *
 * The streams are defined so that they can be reproduced elsewhere:
 * - `bootstrapIntervals` draws exactly what `bootstrapCI` draws (a fresh
 *   generator from the seed, n draws of `nextInt(n)` per resample), so each of
 *   its intervals is `bootstrapCI`'s for that statistic alone, bit for bit.
 * - The stratified functions draw from ONE generator from the seed: per
 *   resample, stratum by stratum in the order given, n_s draws of
 *   `nextInt(n_s)` for a stratum of n_s items. Each stratum keeps its size in
 *   every resample, so a statistic over strata (a mean of per-stratum scores)
 *   never meets a resample in which a stratum is missing or has another size.
 * Quantiles are type 7, as in `bootstrapCI`.
 */

/** A statistic of items resampled within strata: `strata[s]` is stratum s's resample, in the strata's order. */
export type StratifiedStatistic<T> = (strata: ReadonlyArray<readonly T[]>) => number;

function resolve(options: BootstrapOptions): { resamples: number; confidence: number; rng: Rng } {
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? DEFAULT_BOOTSTRAP_CONFIDENCE;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  return { resamples, confidence, rng: createRng(options.seed) };
}

function checked(value: number, what: string): number {
  if (Number.isNaN(value)) throw new RangeError(`the statistic returned NaN on ${what}; define it for every resample (e.g. 0 on a zero denominator)`);
  return value;
}

function percentile(replicates: number[], confidence: number): { lower: number; upper: number } {
  replicates.sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  return { lower: quantileSorted(replicates, tail), upper: quantileSorted(replicates, 1 - tail) };
}

function resample<T>(rng: Rng, items: readonly T[]): T[] {
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = items[rng.nextInt(items.length)]!;
  return out;
}

function checkStrata<T>(strata: ReadonlyArray<readonly T[]>, what = "strata"): void {
  if (strata.length === 0) throw new RangeError(`cannot bootstrap without ${what}: give at least one stratum`);
  strata.forEach((stratum, s) => {
    if (stratum.length === 0) throw new RangeError(`stratum ${s} of the ${what} is empty: every stratum needs at least one item to resample`);
  });
}

/**
 * `bootstrapCI` for several statistics at once: each resample is drawn once and
 * `statistic` returns every named value of it. The interval of each name is the
 * one `bootstrapCI` gives for that value alone with the same items and options.
 */
export function bootstrapIntervals<T, K extends string>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => Readonly<Record<K, number>>,
  names: readonly K[],
  options: BootstrapOptions,
): Record<K, BootstrapInterval> {
  if (items.length === 0) throw new RangeError("cannot bootstrap an empty sample");
  if (names.length === 0) throw new RangeError("name at least one statistic to bootstrap");
  const { resamples, confidence, rng } = resolve(options);
  const originalValues = statistic(items);
  const original = names.map((name) => checked(originalValues[name], `the original items (${name})`));
  const replicates = names.map(() => new Array<number>(resamples));
  for (let r = 0; r < resamples; r++) {
    const values = statistic(resample(rng, items));
    names.forEach((name, k) => (replicates[k]![r] = checked(values[name], `resample ${r} (${name})`)));
  }
  return Object.fromEntries(
    names.map((name, k) => [name, { estimate: original[k]!, ...percentile(replicates[k]!, confidence), resamples, confidence, seed: options.seed }]),
  ) as Record<K, BootstrapInterval>;
}

/**
 * Percentile bootstrap interval for `statistic` over items resampled within
 * their strata (stratified bootstrap): each stratum's items are resampled with
 * replacement to the stratum's own size, independently of the other strata.
 * For an unweighted mean of per-stratum scores (ProcessBench's average over
 * subsets) this is the resampling that matches how the data were sampled: each
 * subset has a fixed size, so a resample of all items at once, in which a
 * subset could shrink, grow or vanish, measures a variation the benchmark
 * does not have.
 */
export function stratifiedBootstrapCI<T>(strata: ReadonlyArray<readonly T[]>, statistic: StratifiedStatistic<T>, options: BootstrapOptions): BootstrapInterval {
  checkStrata(strata);
  const { resamples, confidence, rng } = resolve(options);
  const estimate = checked(statistic(strata), "the original items");
  const replicates = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) replicates[r] = checked(statistic(strata.map((stratum) => resample(rng, stratum))), `resample ${r}`);
  return { estimate, ...percentile(replicates, confidence), resamples, confidence, seed: options.seed };
}

/**
 * `pairedBootstrapTest` within strata: `a[s][i]` and `b[s][i]` are two systems'
 * results on the same item i of stratum s, and each resample draws one set of
 * indices per stratum (the stream of `stratifiedBootstrapCI`) for both. The
 * interval is of statistic(A) − statistic(B); the p-value is
 * 2 · min(share of differences ≤ 0, share ≥ 0), capped at 1.
 */
export function pairedStratifiedBootstrapTest<T>(
  a: ReadonlyArray<readonly T[]>,
  b: ReadonlyArray<readonly T[]>,
  statistic: StratifiedStatistic<T>,
  options: BootstrapOptions,
): PairedBootstrapTest {
  checkStrata(a, "strata of system A");
  if (a.length !== b.length || a.some((stratum, s) => stratum.length !== b[s]!.length)) {
    throw new RangeError(`a paired bootstrap needs both systems on the same items: strata of sizes ${a.map((s) => s.length).join(", ")} and ${b.map((s) => s.length).join(", ")}`);
  }
  const { resamples, confidence, rng } = resolve(options);
  const estimateA = checked(statistic(a), "system A's original items");
  const estimateB = checked(statistic(b), "system B's original items");
  const deltas = new Array<number>(resamples);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let r = 0; r < resamples; r++) {
    const indices = a.map((stratum) => Array.from({ length: stratum.length }, () => rng.nextInt(stratum.length)));
    const statA = checked(statistic(a.map((stratum, s) => indices[s]!.map((i) => stratum[i]!))), `system A's resample ${r}`);
    const statB = checked(statistic(b.map((stratum, s) => indices[s]!.map((i) => stratum[i]!))), `system B's resample ${r}`);
    const delta = statA - statB;
    deltas[r] = delta;
    if (delta <= 0) atOrBelow += 1;
    if (delta >= 0) atOrAbove += 1;
  }
  const pValue = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / resamples);
  return { estimate: estimateA - estimateB, estimateA, estimateB, ...percentile(deltas, confidence), resamples, confidence, seed: options.seed, pValue };
}

/** A `Statistic` of one stratum applied to each stratum and averaged without weights (strata in order, summed from 0). */
export function meanOverStrata<T>(perStratum: Statistic<T>): StratifiedStatistic<T> {
  return (strata) => {
    let sum = 0;
    for (const stratum of strata) sum += perStratum(stratum);
    return strata.length ? sum / strata.length : 0;
  };
}
