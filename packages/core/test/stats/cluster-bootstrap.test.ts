import { describe, expect, it } from "vitest";
import { bootstrapCI, clusterBootstrapMeanCI, clusterTotals, createRng, pooledMean } from "../../src/stats";

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Clusters of 1–9 units; a cluster's units share a cluster effect (strong within-cluster correlation). */
function clusteredSample(seed: string, clusters: number, within = 0.2): number[][] {
  const rng = createRng(seed);
  return Array.from({ length: clusters }, () => {
    const effect = rng.nextFloat() < 0.5 ? 1 : 0;
    const size = 1 + rng.nextInt(9);
    return Array.from({ length: size }, () => (rng.nextFloat() < within ? 1 - effect : effect));
  });
}

describe("cluster bootstrap of a pooled mean", () => {
  it("estimates the mean over every unit, and is reproducible for a seed", () => {
    const clusters = clusteredSample("cluster-fixture", 60);
    const ci = clusterBootstrapMeanCI(clusters, { seed: 5 });
    expect(ci.estimate).toBeCloseTo(mean(clusters.flat()), 12);
    expect(pooledMean(clusterTotals(clusters))).toBeCloseTo(mean(clusters.flat()), 12);
    expect(clusterBootstrapMeanCI(clusters, { seed: 5 })).toEqual(ci);
    expect(clusterBootstrapMeanCI(clusters, { seed: 6 })).not.toEqual(ci);
    expect(ci.lower).toBeLessThan(ci.estimate);
    expect(ci.upper).toBeGreaterThan(ci.estimate);
    // Totals give the very same interval as the unit values.
    expect(clusterBootstrapMeanCI(clusterTotals(clusters), { seed: 5 })).toEqual(ci);
  });

  it("with one unit per cluster it is the plain bootstrap of the units' mean (same draws)", () => {
    const values = clusteredSample("singletons", 50).map((c) => c[0]!);
    const plain = bootstrapCI(values, mean, { seed: "s", resamples: 500 });
    const clustered = clusterBootstrapMeanCI(values.map((v) => [v]), { seed: "s", resamples: 500 });
    expect(clustered.estimate).toBeCloseTo(plain.estimate, 12);
    expect(clustered.lower).toBeCloseTo(plain.lower, 12);
    expect(clustered.upper).toBeCloseTo(plain.upper, 12);
  });

  it("resamples whole clusters: a cluster's units stay together", () => {
    // Two clusters, one all 0 (3 units), one all 1 (1 unit): every resample's mean is 0, 1/4 or 1 (never a unit mix
    // such as 1/2 or 3/4). With 401 resamples the 25 % and 75 % quantiles are order statistics, so the bounds are such means.
    const ci = clusterBootstrapMeanCI([[0, 0, 0], [1]], { seed: 1, resamples: 401, confidence: 0.5 });
    expect(ci.estimate).toBeCloseTo(0.25, 12);
    for (const bound of [ci.lower, ci.upper]) expect([0, 0.25, 1].some((v) => Math.abs(bound - v) < 1e-12), `${bound}`).toBe(true);
    const always = clusterBootstrapMeanCI([[0.5, 0.5], [0.5]], { seed: 1, resamples: 50 });
    expect([always.lower, always.upper]).toEqual([0.5, 0.5]);
  });

  it("covers the true mean about as often as it claims where chunk-level resampling does not", () => {
    // Population: a cluster's units equal its effect (0 or 1, half and half) except with probability 0.2 each; true mean 0.5.
    const datasets = 200;
    let clusterCovers = 0;
    let unitCovers = 0;
    let clusterWidth = 0;
    let unitWidth = 0;
    for (let d = 0; d < datasets; d++) {
      const clusters = clusteredSample(`coverage|${d}`, 40);
      const c = clusterBootstrapMeanCI(clusters, { seed: d, resamples: 400 });
      const u = bootstrapCI(clusters.flat(), mean, { seed: d, resamples: 400 });
      if (c.lower <= 0.5 && 0.5 <= c.upper) clusterCovers += 1;
      if (u.lower <= 0.5 && 0.5 <= u.upper) unitCovers += 1;
      clusterWidth += c.upper - c.lower;
      unitWidth += u.upper - u.lower;
    }
    // Nominal 95 %: the cluster interval is within a few points of it; the unit interval, too narrow by about √(design effect), misses far more often.
    expect(clusterCovers / datasets).toBeGreaterThan(0.88);
    expect(unitCovers / datasets).toBeLessThan(0.8);
    expect(clusterWidth / unitWidth).toBeGreaterThan(1.5);
  });

  it("refuses empty input and clusters without units", () => {
    expect(() => clusterBootstrapMeanCI([], { seed: 1 })).toThrow(/without clusters/);
    expect(() => clusterBootstrapMeanCI([[1], []], { seed: 1 })).toThrow(/cluster 1 has no units/);
    expect(() => clusterBootstrapMeanCI([{ sum: 1, count: 0 }], { seed: 1 })).toThrow(/units ≥ 1/);
    expect(() => clusterBootstrapMeanCI([[1, Number.NaN]], { seed: 1 })).toThrow(/not finite/);
  });
});
