import type { BootstrapOptions } from "../stats/bootstrap";
import { bootstrapIntervals, meanOverStrata, stratifiedBootstrapCI } from "../stats/stratified-bootstrap";
import { scorePredictedSolutions, type FirstErrorPrediction, type PredictedSolution, type ProcessBenchGold } from "./metrics";
import { subsetFromId } from "./record";

/** The two ends of an interval (95 % unless said otherwise), as summaries and Compare give them. */
export interface MetricInterval {
  lower: number;
  upper: number;
}

/** The metrics of one subset that get an interval, in the order summaries and Compare list them. */
export const PROCESSBENCH_INTERVAL_METRICS = ["f1", "acc_err", "acc_cor"] as const;
export type ProcessBenchIntervalMetric = (typeof PROCESSBENCH_INTERVAL_METRICS)[number];

/**
 * The 95 % intervals of a ProcessBench score, one method for every number:
 * the percentile bootstrap over solutions.
 * - Per subset, F1, acc_err and acc_cor: the subset's solutions (in the order
 *   given) resampled with replacement, the metric recomputed by
 *   `scorePredictedSolutions` — what `bootstrapCI` gives for each metric alone
 *   and what Compare shows for the same gold, resamples and seed.
 * - The average F1: stratified, each subset's solutions resampled within the
 *   subset at its own size (`stratifiedBootstrapCI`, subsets in sorted order),
 *   the statistic the unweighted mean of the resampled subset F1s.
 * A class a subset has no solution of has accuracy 0 in every resample, so its
 * interval is [0, 0]: nothing was measured, and views show it as such.
 */
export interface ProcessBenchIntervals {
  f1_ci95: Record<string, MetricInterval>;
  acc_err_ci95: Record<string, MetricInterval>;
  acc_cor_ci95: Record<string, MetricInterval>;
  /** Null without any gold solution. */
  average_f1_ci95: MetricInterval | null;
}

/**
 * `ProcessBenchIntervals` of `predictions` on `gold` (each gold solution once;
 * a missing prediction is wrong, as in `scoreProcessBench`). The resamples
 * depend on the order of the gold, so pass it in a fixed order (file order).
 */
export function processBenchIntervals(
  gold: readonly ProcessBenchGold[],
  predictions: ReadonlyMap<string, FirstErrorPrediction>,
  options: Pick<BootstrapOptions, "resamples" | "seed">,
): ProcessBenchIntervals {
  const bySubset = new Map<string, PredictedSolution[]>();
  const seen = new Set<string>();
  for (const item of gold) {
    if (seen.has(item.id)) throw new RangeError(`gold id ${item.id} appears twice`);
    seen.add(item.id);
    const subset = item.subset ?? subsetFromId(item.id);
    const own = bySubset.get(subset) ?? [];
    bySubset.set(subset, own);
    own.push({ label: item.label, prediction: predictions.get(item.id) });
  }
  const subsets = [...bySubset.keys()].sort((a, b) => a.localeCompare(b));
  const intervals: ProcessBenchIntervals = { f1_ci95: {}, acc_err_ci95: {}, acc_cor_ci95: {}, average_f1_ci95: null };
  for (const subset of subsets) {
    const ci = bootstrapIntervals(bySubset.get(subset)!, scorePredictedSolutions, PROCESSBENCH_INTERVAL_METRICS, options);
    intervals.f1_ci95[subset] = { lower: ci.f1.lower, upper: ci.f1.upper };
    intervals.acc_err_ci95[subset] = { lower: ci.acc_err.lower, upper: ci.acc_err.upper };
    intervals.acc_cor_ci95[subset] = { lower: ci.acc_cor.lower, upper: ci.acc_cor.upper };
  }
  if (subsets.length > 0) {
    const average = stratifiedBootstrapCI(
      subsets.map((s) => bySubset.get(s)!),
      meanOverStrata((solutions: readonly PredictedSolution[]) => scorePredictedSolutions(solutions).f1),
      options,
    );
    intervals.average_f1_ci95 = { lower: average.lower, upper: average.upper };
  }
  return intervals;
}
