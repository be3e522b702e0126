import { bootstrapCI, type BootstrapInterval, type BootstrapOptions } from "./bootstrap";

/**
 * Cluster (block) bootstrap of a pooled mean: the units (e.g. chunks) come in
 * clusters (their solutions) whose units are not independent of each other,
 * so a resample draws whole clusters with replacement, each bringing all its
 * units, and the statistic is the mean over every unit of the resample
 * (Σ of the drawn clusters' sums ÷ Σ of their unit counts). Resampling units
 * instead treats a solution's correlated chunks as independent evidence and
 * gives intervals too narrow by about √(design effect).
 *
 * A paired difference is the mean of per-unit differences (e.g. adaptive's
 * label correct − fixed's, per chunk), so pass those. It is the percentile
 * bootstrap of `bootstrapCI` over the clusters, with the same seed handling:
 * one unit per cluster gives exactly `bootstrapCI` over the units' values.
 */

/** One cluster's units, summarised: the sum of their values and how many there are. */
export interface ClusterTotal {
  sum: number;
  count: number;
}

/** The totals of each cluster of unit values; every cluster needs at least one unit and finite values. */
export function clusterTotals(clusters: readonly (readonly number[])[]): ClusterTotal[] {
  return clusters.map((units, index) => {
    if (units.length === 0) throw new RangeError(`cluster ${index} has no units`);
    let sum = 0;
    for (const value of units) {
      if (!Number.isFinite(value)) throw new RangeError(`cluster ${index} has a unit value that is not finite: ${value}`);
      sum += value;
    }
    return { sum, count: units.length };
  });
}

/** The mean over every unit of the given clusters. */
export function pooledMean(totals: readonly ClusterTotal[]): number {
  let sum = 0;
  let count = 0;
  for (const t of totals) {
    sum += t.sum;
    count += t.count;
  }
  return sum / count;
}

/**
 * Percentile interval of the pooled unit mean, resampling clusters. Accepts
 * the clusters' unit values or their totals (the same interval either way).
 * Identical (clusters, resamples, confidence, seed) give an identical interval.
 */
export function clusterBootstrapMeanCI(clusters: readonly (readonly number[])[] | readonly ClusterTotal[], options: BootstrapOptions): BootstrapInterval {
  if (clusters.length === 0) throw new RangeError("cannot bootstrap without clusters");
  const totals = Array.isArray(clusters[0]) ? clusterTotals(clusters as readonly (readonly number[])[]) : (clusters as readonly ClusterTotal[]);
  for (const [index, t] of totals.entries()) {
    if (!(Number.isInteger(t.count) && t.count >= 1)) throw new RangeError(`cluster ${index} needs a whole number of units ≥ 1, got ${t.count}`);
    if (!Number.isFinite(t.sum)) throw new RangeError(`cluster ${index} has a sum that is not finite: ${t.sum}`);
  }
  return bootstrapCI(totals, pooledMean, options);
}
