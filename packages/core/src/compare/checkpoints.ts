import { subsetFromId } from "../processbench/record";
import { f1FromAccuracies, type FirstErrorPrediction, type ProcessBenchGold, type SubsetAccuracies } from "../processbench/metrics";
import { PROCESSBENCH_INTERVAL_METRICS, type MetricInterval, type ProcessBenchIntervalMetric } from "../processbench/intervals";
import { DEFAULT_BOOTSTRAP_CONFIDENCE, DEFAULT_BOOTSTRAP_RESAMPLES, quantileSorted } from "../stats/bootstrap";
import { createRng, type Seed } from "../stats/random";

/**
 * Side-by-side ProcessBench scores of several judge checkpoints on the same
 * gold solutions, with percentile-bootstrap intervals per metric and paired
 * bootstrap differences against a baseline (spec §4 for the scores).
 *
 * Per subset, intervals are exactly what `bootstrapCI` gives over the subset's
 * gold items in the order given, with the statistic
 * `scorePredictedSolutions(·).<metric>`; on average, what
 * `stratifiedBootstrapCI` gives over the subsets' gold items (subsets in sorted
 * order, each resampled within itself) with the mean of the subset metrics as
 * the statistic. Both are `processBenchIntervals`' streams, the benchmark run
 * summary's, so a benchmark run whose gold is the whole dataset shows the same
 * intervals here as in its summary and on its results page. The resample
 * stream depends on the order of the items, so callers pass gold in a fixed
 * order (file order).
 */

/** Keyed by gold id; a gold id without an entry has no prediction (scored as wrong). */
export type CheckpointPredictions = ReadonlyMap<string, FirstErrorPrediction>;

export interface CheckpointScore extends SubsetAccuracies {
  ci: Record<ProcessBenchIntervalMetric, MetricInterval>;
}

export interface MetricDelta {
  /** This run's metric minus the baseline's, on the original gold items. */
  estimate: number;
  lower: number;
  upper: number;
  /** Two-sided paired-bootstrap p-value (see `pairedBootstrapTest`). */
  pValue: number;
}

export type CheckpointDelta = Record<ProcessBenchIntervalMetric, MetricDelta>;

export interface CheckpointRunScores {
  id: string;
  isBaseline: boolean;
  /** Per subset, in the order of `CheckpointComparison.subsets`. */
  bySubset: Record<string, CheckpointScore>;
  /**
   * Unweighted means over the subsets (ProcessBench's "average" when they are
   * its four; a partial average otherwise, see `averageCoverage`); the interval
   * resamples each subset's gold items within the subset (stratified), with
   * that mean as the statistic.
   */
  average: CheckpointScore;
  /** Against the baseline; null for the baseline itself. */
  delta: { bySubset: Record<string, CheckpointDelta>; average: CheckpointDelta } | null;
  /** Gold items without a prediction from this run (scored as wrong). */
  missing: number;
  /** Gold items whose prediction is null (unparseable; scored as wrong). */
  unparseable: number;
}

export interface CheckpointComparison {
  subsets: string[];
  gold: number;
  baselineId: string;
  resamples: number;
  confidence: number;
  seed: Seed;
  runs: CheckpointRunScores[];
}

export interface CompareCheckpointsInput {
  gold: readonly ProcessBenchGold[];
  runs: ReadonlyArray<{ id: string; predictions: CheckpointPredictions }>;
  baselineId: string;
  resamples?: number;
  seed: Seed;
  confidence?: number;
  /**
   * Replicates already computed for some runs by `checkpointReplicates` on this
   * same gold (same items in the same order) with the same resamples and seed:
   * used instead of drawing again. A paired difference is the difference of the
   * two runs' replicates on the same draws, so the result is the same either way.
   */
  replicates?: ReadonlyMap<string, RunReplicates>;
}

/** One run's bootstrap replicates on one gold set: per metric, the statistic on each resample, for the average and per subset. */
export interface RunReplicates {
  /** Gold items, subsets (sorted), resamples and seed they were drawn for. */
  n: number;
  subsets: string[];
  resamples: number;
  seed: Seed;
  average: Record<ProcessBenchIntervalMetric, Float64Array>;
  /** In the order of `subsets`. */
  bySubset: Array<Record<ProcessBenchIntervalMetric, Float64Array>>;
}

/** A gold item with the subset resolved, so every consumer groups it the same way. */
export function goldSubset(item: ProcessBenchGold): string {
  return item.subset ?? subsetFromId(item.id);
}

/**
 * Outcome of one gold item under one run: subset index × 4 + class
 * (0 erroneous and located, 1 erroneous and missed, 2 error-free and hit, 3 error-free and missed).
 */
const ERROR_HIT = 0;
const ERROR_MISS = 1;
const CORRECT_HIT = 2;
const CORRECT_MISS = 3;

function outcomeClass(label: number, prediction: FirstErrorPrediction | undefined): number {
  // `scorePredictedSolutions`' hit: a parsed prediction equal to the label.
  const hit = prediction !== undefined && prediction !== null && prediction === label;
  return label === -1 ? (hit ? CORRECT_HIT : CORRECT_MISS) : hit ? ERROR_HIT : ERROR_MISS;
}

/** The three metrics of one subset from its class counts at `offset`, with `scorePredictedSolutions`' arithmetic. */
function metricsFromCounts(counts: Int32Array, offset: number): Record<ProcessBenchIntervalMetric, number> {
  const hitsError = counts[offset + ERROR_HIT]!;
  const nError = hitsError + counts[offset + ERROR_MISS]!;
  const hitsCorrect = counts[offset + CORRECT_HIT]!;
  const nCorrect = hitsCorrect + counts[offset + CORRECT_MISS]!;
  const accErr = nError ? hitsError / nError : 0;
  const accCor = nCorrect ? hitsCorrect / nCorrect : 0;
  return { f1: f1FromAccuracies(accErr, accCor), acc_err: accErr, acc_cor: accCor };
}

/**
 * The unweighted mean of the subsets' metrics from per-subset counts, summed in
 * subset order (`meanOverStrata`'s arithmetic). A stratified resample holds
 * every subset at its size; a subset without counts would score 0.
 */
function averageFromCounts(counts: Int32Array, subsetCount: number): Record<ProcessBenchIntervalMetric, number> {
  const sums = { f1: 0, acc_err: 0, acc_cor: 0 };
  for (let s = 0; s < subsetCount; s++) {
    const offset = s * 4;
    const present = counts[offset]! + counts[offset + 1]! + counts[offset + 2]! + counts[offset + 3]! > 0;
    const metrics = present ? metricsFromCounts(counts, offset) : null;
    for (const m of PROCESSBENCH_INTERVAL_METRICS) sums[m] += metrics ? metrics[m] : 0;
  }
  const mean = (sum: number) => (subsetCount ? sum / subsetCount : 0);
  return { f1: mean(sums.f1), acc_err: mean(sums.acc_err), acc_cor: mean(sums.acc_cor) };
}

/** Replicates of every run's metrics over one scope (a subset's items, or all items). */
interface ScopeReplicates {
  /** [run][metric] → the statistic on each resample. */
  values: Array<Record<ProcessBenchIntervalMetric, Float64Array>>;
}

/**
 * The bootstrap of one scope for every run at once. `bootstrapCI` and
 * `pairedBootstrapTest` with the same seed over the same number of items draw
 * the same resample indices (a fresh generator per call, n draws of
 * `nextInt(n)` per resample), so one stream of draws serves every run, metric,
 * interval and paired difference: the replicates are exactly theirs, computed
 * from outcome counts instead of a resampled array per run and metric.
 *
 * Each item is reduced to its joint outcome, the tuple of every run's code:
 * a resample tallies how often each distinct tuple was drawn in the same pass
 * that draws it (`Rng.tallyInts`), and each run's counts are then summed over
 * the few distinct tuples (at most 4^runs × subsets), not over the items.
 */
function bootstrapScope(
  codes: ReadonlyArray<ArrayLike<number>>,
  subsetCount: number,
  statistic: (counts: Int32Array) => Record<ProcessBenchIntervalMetric, number>,
  resamples: number,
  seed: Seed,
): ScopeReplicates {
  const { joint, tuples } = jointOutcomes(codes);
  const distinct = tuples[0]!.length;
  const rng = createRng(seed);
  const values = codes.map(() => ({ f1: new Float64Array(resamples), acc_err: new Float64Array(resamples), acc_cor: new Float64Array(resamples) }));
  const tally = new Int32Array(subsetCount * 4);
  const drawnTuples = new Int32Array(distinct);
  for (let r = 0; r < resamples; r++) {
    drawnTuples.fill(0);
    rng.tallyInts(joint, drawnTuples);
    for (let run = 0; run < codes.length; run++) {
      const own = tuples[run]!;
      tally.fill(0);
      for (let d = 0; d < distinct; d++) tally[own[d]!]! += drawnTuples[d]!;
      const metrics = statistic(tally);
      const target = values[run]!;
      target.f1[r] = metrics.f1;
      target.acc_err[r] = metrics.acc_err;
      target.acc_cor[r] = metrics.acc_cor;
    }
  }
  return { values };
}

/**
 * The stratified bootstrap of the average for every run at once: the stream of
 * `stratifiedBootstrapCI` over the subsets' items (one generator from the seed;
 * per resample, subset by subset in order, n_s draws of `nextInt(n_s)`), each
 * subset reduced to its joint outcomes as in `bootstrapScope`, so the
 * replicates are exactly `stratifiedBootstrapCI`'s and
 * `pairedStratifiedBootstrapTest`'s with the mean of the subset metrics as the
 * statistic. `codes[s][run]` is the run's outcome class (0–3) on subset s's
 * items, in gold order.
 */
function bootstrapStrata(codes: ReadonlyArray<ReadonlyArray<ArrayLike<number>>>, resamples: number, seed: Seed): ScopeReplicates {
  const subsetCount = codes.length;
  const runCount = codes[0]!.length;
  const strata = codes.map((own) => jointOutcomes(own));
  const drawnTuples = strata.map((stratum) => new Int32Array(stratum.tuples[0]!.length));
  const rng = createRng(seed);
  const values = Array.from({ length: runCount }, () => ({ f1: new Float64Array(resamples), acc_err: new Float64Array(resamples), acc_cor: new Float64Array(resamples) }));
  const tally = new Int32Array(subsetCount * 4);
  for (let r = 0; r < resamples; r++) {
    for (let s = 0; s < subsetCount; s++) {
      drawnTuples[s]!.fill(0);
      rng.tallyInts(strata[s]!.joint, drawnTuples[s]!);
    }
    for (let run = 0; run < runCount; run++) {
      tally.fill(0);
      for (let s = 0; s < subsetCount; s++) {
        const own = strata[s]!.tuples[run]!;
        const drawn = drawnTuples[s]!;
        for (let d = 0; d < drawn.length; d++) tally[s * 4 + own[d]!]! += drawn[d]!;
      }
      const metrics = averageFromCounts(tally, subsetCount);
      const target = values[run]!;
      target.f1[r] = metrics.f1;
      target.acc_err[r] = metrics.acc_err;
      target.acc_cor[r] = metrics.acc_cor;
    }
  }
  return { values };
}

/**
 * Items numbered by their distinct tuple of run codes (in order of first
 * appearance): `joint[i]` is item i's tuple, `tuples[run][d]` the run's code in tuple d.
 */
export function jointOutcomes(codes: ReadonlyArray<ArrayLike<number>>): { joint: Uint8Array | Uint16Array | Uint32Array; tuples: Int32Array[] } {
  const n = codes[0]!.length;
  let width = 1;
  for (const own of codes) for (let i = 0; i < n; i++) width = Math.max(width, own[i]! + 1);
  // Fold the runs in one at a time: (tuple so far, next run's code) → a new tuple number, so keys stay below n × width.
  const current = Int32Array.from({ length: n }, (_, i) => codes[0]![i]!);
  let members: Int32Array[] = [];
  {
    const index = new Map<number, number>();
    const first: number[] = [];
    for (let i = 0; i < n; i++) {
      const key = current[i]!;
      let d = index.get(key);
      if (d === undefined) {
        d = index.size;
        index.set(key, d);
        first.push(key);
      }
      current[i] = d;
    }
    members = [Int32Array.from(first)];
  }
  for (let run = 1; run < codes.length; run++) {
    const own = codes[run]!;
    const index = new Map<number, number>();
    const previous: number[] = [];
    const code: number[] = [];
    for (let i = 0; i < n; i++) {
      const key = current[i]! * width + own[i]!;
      let d = index.get(key);
      if (d === undefined) {
        d = index.size;
        index.set(key, d);
        previous.push(current[i]!);
        code.push(own[i]!);
      }
      current[i] = d;
    }
    members = [...members.map((m) => Int32Array.from(previous, (p) => m[p]!)), Int32Array.from(code)];
  }
  const distinct = members[0]!.length;
  const joint = distinct <= 256 ? new Uint8Array(n) : distinct <= 65_536 ? new Uint16Array(n) : new Uint32Array(n);
  joint.set(current);
  return { joint, tuples: members };
}

/** `bootstrapCI`'s percentile interval (type-7 quantiles) of the replicates. */
function percentileInterval(replicates: ArrayLike<number>, confidence: number): MetricInterval {
  const sorted = Array.from(replicates).sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  return { lower: quantileSorted(sorted, tail), upper: quantileSorted(sorted, 1 - tail) };
}

/** `pairedBootstrapTest` from the two runs' replicates on the same resamples. */
function pairedDelta(a: Float64Array, b: Float64Array, estimate: number, confidence: number): MetricDelta {
  const deltas = new Array<number>(a.length);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let r = 0; r < a.length; r++) {
    const delta = a[r]! - b[r]!;
    deltas[r] = delta;
    if (delta <= 0) atOrBelow += 1;
    if (delta >= 0) atOrAbove += 1;
  }
  const pValue = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / deltas.length);
  return { estimate, ...percentileInterval(deltas, confidence), pValue };
}

/**
 * One run's outcomes on a gold set, all its scores need: per subset (in the
 * comparison's sorted subset order) how many items fall in each class, at
 * `subset × 4 +` 0 erroneous and located, 1 erroneous and missed, 2 error-free
 * and hit, 3 error-free and missed; and how many items it has no prediction
 * for, or an unparseable one (both among the misses).
 */
export interface CheckpointOutcomeCounts {
  classes: Int32Array;
  missing: number;
  unparseable: number;
}

/** A run's `CheckpointOutcomeCounts` from its predictions on the gold items (`subsetOf[i]` is item i's subset index). */
export function checkpointOutcomeCounts(gold: readonly ProcessBenchGold[], subsetOf: ArrayLike<number>, subsetCount: number, predictions: CheckpointPredictions): CheckpointOutcomeCounts {
  const classes = new Int32Array(subsetCount * 4);
  let missing = 0;
  let unparseable = 0;
  gold.forEach((item, i) => {
    const prediction = predictions.get(item.id);
    if (prediction === undefined) missing += 1;
    else if (prediction === null) unparseable += 1;
    classes[subsetOf[i]! * 4 + outcomeClass(item.label, prediction)]! += 1;
  });
  return { classes, missing, unparseable };
}

/** `scorePredictedSolutions` of the items behind one subset's class counts, with its arithmetic. */
function scoreOfCounts(classes: Int32Array, offset: number): SubsetAccuracies {
  const nError = classes[offset + ERROR_HIT]! + classes[offset + ERROR_MISS]!;
  const nCorrect = classes[offset + CORRECT_HIT]! + classes[offset + CORRECT_MISS]!;
  const { f1, acc_err, acc_cor } = metricsFromCounts(classes, offset);
  return { n: nError + nCorrect, n_error: nError, n_correct: nCorrect, acc_err, acc_cor, f1 };
}

function validateComparison(runIds: readonly string[], baselineId: string, resamples: number, confidence: number): void {
  if (!runIds.includes(baselineId)) throw new RangeError(`the baseline ${baselineId} is not one of the compared runs`);
  if (new Set(runIds).size !== runIds.length) throw new RangeError("a run appears twice");
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
}

function checkStoredReplicates(runId: string, stored: RunReplicates, n: number, subsets: readonly string[], resamples: number, seed: Seed): void {
  if (stored.n !== n || stored.resamples !== resamples || String(stored.seed) !== String(seed) || stored.subsets.join("\u0000") !== subsets.join("\u0000")) {
    throw new RangeError(`the stored replicates of run ${runId} were drawn for another gold set, number of resamples or seed`);
  }
}

export function compareCheckpoints(input: CompareCheckpointsInput): CheckpointComparison {
  const { gold, runs, baselineId, seed } = input;
  const resamples = input.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = input.confidence ?? DEFAULT_BOOTSTRAP_CONFIDENCE;
  if (gold.length === 0) throw new RangeError("no gold solutions to compare on");
  validateComparison(runs.map((r) => r.id), baselineId, resamples, confidence);
  const seen = new Set<string>();
  for (const item of gold) {
    if (seen.has(item.id)) throw new RangeError(`gold id ${item.id} appears twice`);
    seen.add(item.id);
  }
  const subsets = [...new Set(gold.map(goldSubset))].sort((a, b) => a.localeCompare(b));
  const subsetIndex = new Map(subsets.map((s, i) => [s, i]));
  const goldSubsets = gold.map((g) => subsetIndex.get(goldSubset(g))!);

  // Outcome codes per run over all items (subset × 4 + class), and per subset over its items in gold order (class only).
  // The narrowest array that holds subsets × 4 codes (less memory to stream through per resample).
  const codeArray = (length: number) => (subsets.length <= 64 ? new Uint8Array(length) : subsets.length <= 16_384 ? new Uint16Array(length) : new Uint32Array(length));
  const allCodes = runs.map((run) => {
    const codes = codeArray(gold.length);
    gold.forEach((item, i) => (codes[i] = goldSubsets[i]! * 4 + outcomeClass(item.label, run.predictions.get(item.id))));
    return codes;
  });
  const subsetPositions = subsets.map((_, s) => goldSubsets.flatMap((own, i) => (own === s ? [i] : [])));

  // Runs with usable stored replicates are not drawn again; the others are drawn together (one stream per scope).
  const given = runs.map((run) => {
    const stored = input.replicates?.get(run.id);
    if (stored) checkStoredReplicates(run.id, stored, gold.length, subsets, resamples, seed);
    return stored ?? null;
  });
  const drawn = runs.flatMap((_, r) => (given[r] ? [] : [r]));
  // Each subset's class codes per drawn run, in gold order: what both the per-subset scopes and the stratified average draw on.
  const subsetCodes = subsetPositions.map((positions) => drawn.map((r) => Uint8Array.from(positions, (i) => allCodes[r]![i]! & 3)));
  const drawnAverage = drawn.length ? bootstrapStrata(subsetCodes, resamples, seed) : null;
  const drawnBySubset = subsetCodes.map((codes) => (drawn.length ? bootstrapScope(codes, 1, (counts) => metricsFromCounts(counts, 0), resamples, seed) : null));
  const replicates = new Map<string, RunReplicates>(
    runs.map((run, r) => {
      const own = drawn.indexOf(r);
      const values: RunReplicates = given[r] ?? {
        n: gold.length,
        subsets,
        resamples,
        seed,
        average: drawnAverage!.values[own]!,
        bySubset: drawnBySubset.map((scope) => scope!.values[own]!),
      };
      return [run.id, values];
    }),
  );
  return compareCheckpointCounts({
    subsets,
    gold: gold.length,
    runs: runs.map((run) => ({ id: run.id, counts: checkpointOutcomeCounts(gold, goldSubsets, subsets.length, run.predictions) })),
    baselineId,
    resamples,
    confidence,
    seed,
    replicates,
  });
}

export interface CompareCheckpointCountsInput {
  /** Sorted as `compareCheckpoints` sorts them (`localeCompare`). */
  subsets: string[];
  /** Gold items compared on. */
  gold: number;
  runs: ReadonlyArray<{ id: string; counts: CheckpointOutcomeCounts }>;
  baselineId: string;
  resamples?: number;
  seed: Seed;
  confidence?: number;
  /** Every run's replicates on this gold with these resamples and seed (`checkpointReplicates`). */
  replicates: ReadonlyMap<string, RunReplicates>;
}

/**
 * `compareCheckpoints` from what is left of the gold once every run's
 * replicates are stored: each run's outcome counts per subset. The point
 * estimates are functions of the counts and the intervals and paired
 * differences of the replicates, so the result is the same, number for number,
 * without reading the gold items.
 */
export function compareCheckpointCounts(input: CompareCheckpointCountsInput): CheckpointComparison {
  const { subsets, runs, baselineId, seed } = input;
  const resamples = input.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = input.confidence ?? DEFAULT_BOOTSTRAP_CONFIDENCE;
  if (input.gold === 0) throw new RangeError("no gold solutions to compare on");
  validateComparison(runs.map((r) => r.id), baselineId, resamples, confidence);
  for (const run of runs) {
    const stored = input.replicates.get(run.id);
    if (!stored) throw new RangeError(`run ${run.id} has no replicates`);
    checkStoredReplicates(run.id, stored, input.gold, subsets, resamples, seed);
    let total = 0;
    for (const count of run.counts.classes) total += count;
    if (run.counts.classes.length !== subsets.length * 4 || total !== input.gold) {
      throw new RangeError(`the outcome counts of run ${run.id} do not cover the ${input.gold} gold items of ${subsets.length} subsets`);
    }
  }
  const baselineIndex = runs.findIndex((r) => r.id === baselineId);
  const replicatesOf = (r: number) => input.replicates.get(runs[r]!.id)!;
  const average: ScopeReplicates = { values: runs.map((_, r) => replicatesOf(r).average) };
  const bySubset: ScopeReplicates[] = subsets.map((_, s) => ({ values: runs.map((_, r) => replicatesOf(r).bySubset[s]!) }));

  const subsetScores = runs.map((run) => subsets.map((_, s) => scoreOfCounts(run.counts.classes, s * 4)));
  const averageScore = (run: number) => {
    const scores = subsetScores[run]!;
    const mean = (metric: ProcessBenchIntervalMetric) => scores.reduce((sum, score) => sum + score[metric], 0) / scores.length;
    const counts = scores.reduce((sum, score) => ({ n: sum.n + score.n, n_error: sum.n_error + score.n_error, n_correct: sum.n_correct + score.n_correct }), { n: 0, n_error: 0, n_correct: 0 });
    return { ...counts, f1: mean("f1"), acc_err: mean("acc_err"), acc_cor: mean("acc_cor") };
  };
  const intervals = (scope: ScopeReplicates, run: number) =>
    Object.fromEntries(PROCESSBENCH_INTERVAL_METRICS.map((m) => [m, percentileInterval(scope.values[run]![m], confidence)])) as CheckpointScore["ci"];
  const deltas = (scope: ScopeReplicates, run: number, estimate: (metric: ProcessBenchIntervalMetric) => number) =>
    Object.fromEntries(PROCESSBENCH_INTERVAL_METRICS.map((m) => [m, pairedDelta(scope.values[run]![m], scope.values[baselineIndex]![m], estimate(m), confidence)])) as CheckpointDelta;

  return {
    subsets: [...subsets],
    gold: input.gold,
    baselineId,
    resamples,
    confidence,
    seed,
    runs: runs.map((run, r) => {
      const isBaseline = r === baselineIndex;
      return {
        id: run.id,
        isBaseline,
        bySubset: Object.fromEntries(subsets.map((s, i) => [s, { ...subsetScores[r]![i]!, ci: intervals(bySubset[i]!, r) }])),
        average: { ...averageScore(r), ci: intervals(average, r) },
        delta: isBaseline
          ? null
          : {
              bySubset: Object.fromEntries(
                subsets.map((s, i) => [s, deltas(bySubset[i]!, r, (m) => subsetScores[r]![i]![m] - subsetScores[baselineIndex]![i]![m])]),
              ),
              average: deltas(average, r, (m) => averageStatistic(subsetScores[r]!, m) - averageStatistic(subsetScores[baselineIndex]!, m)),
            },
        missing: run.counts.missing,
        unparseable: run.counts.unparseable,
      };
    }),
  };
}

/** `averageOf` on the original items: every subset is present, so it is the plain mean of the subset metrics, summed in subset order. */
function averageStatistic(scores: readonly SubsetAccuracies[], metric: ProcessBenchIntervalMetric): number {
  let sum = 0;
  for (const score of scores) sum += score[metric];
  return scores.length ? sum / scores.length : 0;
}

/**
 * One run's replicates on `gold` (in its order), exactly those `compareCheckpoints`
 * draws for it with the same resamples and seed: stored once, they let any later
 * comparison on the same gold skip the run's draws.
 */
export function checkpointReplicates(input: { gold: readonly ProcessBenchGold[]; predictions: CheckpointPredictions; resamples?: number; seed: Seed }): RunReplicates {
  const resamples = input.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  if (input.gold.length === 0) throw new RangeError("no gold solutions to draw on");
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  const subsets = [...new Set(input.gold.map(goldSubset))].sort((a, b) => a.localeCompare(b));
  const subsetIndex = new Map(subsets.map((s, i) => [s, i]));
  const goldSubsets = input.gold.map((g) => subsetIndex.get(goldSubset(g))!);
  const classes = input.gold.map((g) => outcomeClass(g.label, input.predictions.get(g.id)));
  const own = subsets.map((_, s) => classes.filter((_, i) => goldSubsets[i] === s));
  const average = bootstrapStrata(own.map((codes) => [codes]), resamples, input.seed);
  const bySubset = own.map((codes) => bootstrapScope([codes], 1, (counts) => metricsFromCounts(counts, 0), resamples, input.seed).values[0]!);
  return { n: input.gold.length, subsets, resamples, seed: input.seed, average: average.values[0]!, bySubset };
}

/** The replicates as one Float64 little-endian block: the average's f1, acc_err, acc_cor, then each subset's, `resamples` values each. */
export function packReplicates(replicates: RunReplicates): Uint8Array<ArrayBuffer> {
  const scopes = [replicates.average, ...replicates.bySubset];
  const out = new Float64Array(scopes.length * PROCESSBENCH_INTERVAL_METRICS.length * replicates.resamples);
  let offset = 0;
  for (const scope of scopes) {
    for (const metric of PROCESSBENCH_INTERVAL_METRICS) {
      out.set(scope[metric], offset);
      offset += replicates.resamples;
    }
  }
  // Float64Array is in the platform's byte order; every platform Node.js runs on is little-endian, and this checks it.
  if (new Uint8Array(new Float64Array([1]).buffer)[7] !== 0x3f) throw new Error("packed replicates assume a little-endian platform");
  return new Uint8Array(out.buffer as ArrayBuffer);
}

/** `packReplicates` read back; refuses a block of the wrong size for its subsets and resamples. */
export function unpackReplicates(bytes: Uint8Array, meta: Omit<RunReplicates, "average" | "bySubset">): RunReplicates {
  const blocks = (1 + meta.subsets.length) * PROCESSBENCH_INTERVAL_METRICS.length;
  if (bytes.byteLength !== blocks * meta.resamples * 8) {
    throw new RangeError(`stored replicates hold ${bytes.byteLength} bytes, not the ${blocks * meta.resamples * 8} of ${meta.subsets.length} subsets × ${meta.resamples} resamples`);
  }
  const values = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  let offset = 0;
  const scope = () =>
    Object.fromEntries(
      PROCESSBENCH_INTERVAL_METRICS.map((metric) => {
        const block = values.slice(offset, offset + meta.resamples);
        offset += meta.resamples;
        return [metric, block];
      }),
    ) as Record<ProcessBenchIntervalMetric, Float64Array>;
  const average = scope();
  const bySubset = meta.subsets.map(() => scope());
  return { ...meta, average, bySubset };
}
