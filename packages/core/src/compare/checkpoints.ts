import { subsetFromId } from "../processbench/record";
import { scorePredictedSolutions, type FirstErrorPrediction, type PredictedSolution, type ProcessBenchGold, type SubsetAccuracies } from "../processbench/metrics";
import { bootstrapCI, DEFAULT_BOOTSTRAP_CONFIDENCE, DEFAULT_BOOTSTRAP_RESAMPLES, pairedBootstrapTest, type Statistic } from "../stats/bootstrap";
import type { Seed } from "../stats/random";

/**
 * Side-by-side ProcessBench scores of several judge checkpoints on the same
 * gold solutions, with percentile-bootstrap intervals per metric and paired
 * bootstrap differences against a baseline (spec §4 for the scores).
 *
 * Intervals are exactly what `bootstrapCI` gives over a subset's gold items in
 * the order given, with the statistic `scorePredictedSolutions(·).<metric>`:
 * the same function and stream the benchmark run summary's `f1_ci95` uses, so
 * a benchmark run whose gold is the whole dataset shows the same F1 interval
 * here as in its summary. The resample stream depends on the order of the
 * items, so callers pass gold in a fixed order (file order).
 */

/** Keyed by gold id; a gold id without an entry has no prediction (scored as wrong). */
export type CheckpointPredictions = ReadonlyMap<string, FirstErrorPrediction>;

export const CHECKPOINT_METRICS = ["f1", "acc_err", "acc_cor"] as const;
export type CheckpointMetric = (typeof CHECKPOINT_METRICS)[number];

export interface MetricInterval {
  lower: number;
  upper: number;
}

export interface CheckpointScore extends SubsetAccuracies {
  ci: Record<CheckpointMetric, MetricInterval>;
}

export interface MetricDelta {
  /** This run's metric minus the baseline's, on the original gold items. */
  estimate: number;
  lower: number;
  upper: number;
  /** Two-sided paired-bootstrap p-value (see `pairedBootstrapTest`). */
  pValue: number;
}

export type CheckpointDelta = Record<CheckpointMetric, MetricDelta>;

export interface CheckpointRunScores {
  id: string;
  isBaseline: boolean;
  /** Per subset, in the order of `CheckpointComparison.subsets`. */
  bySubset: Record<string, CheckpointScore>;
  /**
   * Unweighted means over the subsets (the paper's "average"); the interval
   * resamples all gold items at once with that mean as the statistic.
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
}

/** A gold item with the subset resolved, so every consumer groups it the same way. */
export function goldSubset(item: ProcessBenchGold): string {
  return item.subset ?? subsetFromId(item.id);
}

const metricOf = (metric: CheckpointMetric): Statistic<PredictedSolution> => (sample) => scorePredictedSolutions(sample)[metric];

/**
 * Mean of the per-subset metric over `subsets`, from items tagged with their
 * subset. A subset absent from a resample scores 0 there, the convention of an
 * empty class in `scoreProcessBench`, so every resample has a value.
 */
function averageOf(subsets: readonly string[], metric: CheckpointMetric): Statistic<PredictedSolution & { subset: string }> {
  return (sample) => {
    const groups = new Map<string, PredictedSolution[]>(subsets.map((s) => [s, []]));
    for (const item of sample) groups.get(item.subset)?.push(item);
    let sum = 0;
    for (const subset of subsets) {
      const items = groups.get(subset)!;
      sum += items.length ? scorePredictedSolutions(items)[metric] : 0;
    }
    return subsets.length ? sum / subsets.length : 0;
  };
}

export function compareCheckpoints(input: CompareCheckpointsInput): CheckpointComparison {
  const { gold, runs, baselineId, seed } = input;
  const resamples = input.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = input.confidence ?? DEFAULT_BOOTSTRAP_CONFIDENCE;
  if (gold.length === 0) throw new RangeError("no gold solutions to compare on");
  if (!runs.some((r) => r.id === baselineId)) throw new RangeError(`the baseline ${baselineId} is not one of the compared runs`);
  if (new Set(runs.map((r) => r.id)).size !== runs.length) throw new RangeError("a run appears twice");
  const seen = new Set<string>();
  for (const item of gold) {
    if (seen.has(item.id)) throw new RangeError(`gold id ${item.id} appears twice`);
    seen.add(item.id);
  }
  const subsets = [...new Set(gold.map(goldSubset))].sort((a, b) => a.localeCompare(b));
  const options = { resamples, seed, confidence };

  const tagged = (predictions: CheckpointPredictions) => gold.map((g) => ({ label: g.label, prediction: predictions.get(g.id), subset: goldSubset(g) }));
  const items = new Map(runs.map((run) => [run.id, tagged(run.predictions)]));
  const inSubset = (runId: string, subset: string) => items.get(runId)!.filter((item) => item.subset === subset);

  const scoreOf = (all: ReturnType<typeof tagged>, subset: string | null): CheckpointScore => {
    if (subset !== null) {
      const part = all.filter((item) => item.subset === subset);
      const ci = Object.fromEntries(CHECKPOINT_METRICS.map((m) => [m, pick(bootstrapCI(part, metricOf(m), options))])) as CheckpointScore["ci"];
      return { ...scorePredictedSolutions(part), ci };
    }
    const bySubset = subsets.map((s) => scorePredictedSolutions(all.filter((item) => item.subset === s)));
    const mean = (metric: CheckpointMetric) => bySubset.reduce((sum, s) => sum + s[metric], 0) / bySubset.length;
    const ci = Object.fromEntries(CHECKPOINT_METRICS.map((m) => [m, pick(bootstrapCI(all, averageOf(subsets, m), options))])) as CheckpointScore["ci"];
    const counts = scorePredictedSolutions(all);
    return { n: counts.n, n_error: counts.n_error, n_correct: counts.n_correct, f1: mean("f1"), acc_err: mean("acc_err"), acc_cor: mean("acc_cor"), ci };
  };

  const deltaOf = (a: ReturnType<typeof tagged>, b: ReturnType<typeof tagged>, subset: string | null): CheckpointDelta =>
    Object.fromEntries(
      CHECKPOINT_METRICS.map((m) => {
        const test = pairedBootstrapTest(a, b, subset === null ? averageOf(subsets, m) : metricOf(m), options);
        return [m, { estimate: test.estimate, lower: test.lower, upper: test.upper, pValue: test.pValue }];
      }),
    ) as CheckpointDelta;

  const baseline = items.get(baselineId)!;
  return {
    subsets,
    gold: gold.length,
    baselineId,
    resamples,
    confidence,
    seed,
    runs: runs.map((run) => {
      const all = items.get(run.id)!;
      const isBaseline = run.id === baselineId;
      return {
        id: run.id,
        isBaseline,
        bySubset: Object.fromEntries(subsets.map((s) => [s, scoreOf(all, s)])),
        average: scoreOf(all, null),
        delta: isBaseline
          ? null
          : {
              bySubset: Object.fromEntries(subsets.map((s) => [s, deltaOf(inSubset(run.id, s), inSubset(baselineId, s), s)])),
              average: deltaOf(all, baseline, null),
            },
        missing: all.filter((item) => item.prediction === undefined).length,
        unparseable: all.filter((item) => item.prediction === null).length,
      };
    }),
  };
}

function pick({ lower, upper }: MetricInterval): MetricInterval {
  return { lower, upper };
}
