import { describe, expect, it } from "vitest";
import { bootstrapCI, quantileSorted } from "../../src/stats/bootstrap";
import { createRng } from "../../src/stats/random";
import { bootstrapIntervals, meanOverStrata, pairedStratifiedBootstrapTest, stratifiedBootstrapCI } from "../../src/stats/stratified-bootstrap";

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

// Three strata of different sizes and levels: 0/1 outcomes with 20 %, 50 % and 90 % ones.
const strata = (() => {
  const rng = createRng("strata-fixture");
  return [
    { size: 30, p: 0.2 },
    { size: 7, p: 0.5 },
    { size: 60, p: 0.9 },
  ].map(({ size, p }) => Array.from({ length: size }, () => (rng.nextFloat() < p ? 1 : 0)));
})();

/** The documented stream written out: one generator; per resample, stratum by stratum, n_s draws of nextInt(n_s). */
function byHand(items: number[][], statistic: (strata: number[][]) => number, resamples: number, seed: number, confidence = 0.95) {
  const rng = createRng(seed);
  const replicates: number[] = [];
  for (let r = 0; r < resamples; r++) replicates.push(statistic(items.map((stratum) => stratum.map(() => stratum[rng.nextInt(stratum.length)]!))));
  replicates.sort((a, b) => a - b);
  return { lower: quantileSorted(replicates, (1 - confidence) / 2), upper: quantileSorted(replicates, 1 - (1 - confidence) / 2) };
}

describe("stratified percentile bootstrap", () => {
  it("draws each stratum within itself, in order, from one generator: the documented stream", () => {
    const statistic = meanOverStrata(mean);
    const ci = stratifiedBootstrapCI(strata, statistic, { resamples: 400, seed: 9 });
    expect({ lower: ci.lower, upper: ci.upper }).toEqual(byHand(strata, statistic, 400, 9));
    expect(ci).toMatchObject({ estimate: (mean(strata[0]!) + mean(strata[1]!) + mean(strata[2]!)) / 3, resamples: 400, confidence: 0.95, seed: 9 });
    expect(stratifiedBootstrapCI(strata, statistic, { resamples: 400, seed: 9 })).toEqual(ci);
    expect(stratifiedBootstrapCI(strata, statistic, { resamples: 400, seed: 10 })).not.toEqual(ci);
  });

  it("keeps every stratum at its size, drawing only its own items", () => {
    const tagged = strata.map((stratum, s) => stratum.map((value, i) => ({ s, i, value })));
    let calls = 0;
    stratifiedBootstrapCI(
      tagged,
      (resampled) => {
        calls += 1;
        resampled.forEach((stratum, s) => {
          if (stratum.length !== tagged[s]!.length) throw new Error(`stratum ${s} has ${stratum.length} items, not ${tagged[s]!.length}`);
          if (stratum.some((item) => item.s !== s)) throw new Error(`stratum ${s} drew another stratum's item`);
        });
        return 0;
      },
      { resamples: 50, seed: 1 },
    );
    expect(calls).toBe(51);
  });

  it("has no spread where only the mix of strata could vary: a stratum of zeros and one of ones average 1/2 in every resample", () => {
    const split = [Array<number>(10).fill(0), Array<number>(3).fill(1)];
    const stratified = stratifiedBootstrapCI(split, meanOverStrata(mean), { resamples: 300, seed: 4 });
    expect([stratified.lower, stratified.estimate, stratified.upper]).toEqual([0.5, 0.5, 0.5]);
    // Resampling all 13 items at once with the same mean-of-stratum-means statistic lets the small stratum vanish from a resample.
    const pooled = split.flatMap((stratum, s) => stratum.map((value) => ({ s, value })));
    const overAll = bootstrapCI(pooled, (sample) => (mean(sample.filter((x) => x.s === 0).map((x) => x.value)) + mean(sample.filter((x) => x.s === 1).map((x) => x.value))) / 2, { resamples: 300, seed: 4 });
    expect(overAll.lower).toBeLessThan(0.5);
  });

  it("refuses strata it cannot resample and a statistic that gives NaN", () => {
    expect(() => stratifiedBootstrapCI([], meanOverStrata(mean), { seed: 0 })).toThrow(/at least one stratum/);
    expect(() => stratifiedBootstrapCI([[1], []], meanOverStrata(mean), { seed: 0 })).toThrow(/stratum 1 .* is empty/);
    expect(() => stratifiedBootstrapCI(strata, () => Number.NaN, { seed: 0 })).toThrow(/NaN on the original items/);
    expect(() => stratifiedBootstrapCI(strata, meanOverStrata(mean), { seed: 0, resamples: 0 })).toThrow(/resamples must be a positive integer/);
    expect(() => stratifiedBootstrapCI(strata, meanOverStrata(mean), { seed: 0, confidence: 1 })).toThrow(/confidence must be in \(0, 1\)/);
  });
});

describe("paired stratified bootstrap", () => {
  const better = strata.map((stratum) => stratum.map((x, i) => (i % 3 === 0 ? 1 : x)));

  it("differences the two systems on the same draws, stratum by stratum", () => {
    const statistic = meanOverStrata(mean);
    const test = pairedStratifiedBootstrapTest(better, strata, statistic, { resamples: 300, seed: 2 });
    const paired = strata.map((stratum, s) => stratum.map((x, i) => better[s]![i]! - x));
    // The mean of per-stratum means is linear, so the difference on paired draws is the statistic of the paired differences.
    const expected = byHand(paired, statistic, 300, 2);
    expect(test.lower).toBeCloseTo(expected.lower, 12);
    expect(test.upper).toBeCloseTo(expected.upper, 12);
    expect(test.estimate).toBeCloseTo(statistic(better) - statistic(strata), 15);
    expect(test).toMatchObject({ estimateA: statistic(better), estimateB: statistic(strata) });
    // better is never below the original on any item, and above it on some item of every resample.
    expect(test.pValue).toBe(0);
  });

  it("gives 0 with p = 1 for identical systems and refuses systems on different items", () => {
    expect(pairedStratifiedBootstrapTest(strata, strata, meanOverStrata(mean), { resamples: 100, seed: 3 })).toMatchObject({ estimate: 0, lower: 0, upper: 0, pValue: 1 });
    expect(() => pairedStratifiedBootstrapTest(strata, strata.slice(1), meanOverStrata(mean), { seed: 0 })).toThrow(/same items/);
    expect(() => pairedStratifiedBootstrapTest(strata, [strata[0]!, strata[1]!.slice(1), strata[2]!], meanOverStrata(mean), { seed: 0 })).toThrow(/same items/);
  });
});

describe("several statistics of one resample", () => {
  it("gives for each name the interval bootstrapCI gives for it alone", () => {
    const items = strata[0]!.concat(strata[2]!);
    const both = (sample: readonly number[]) => ({ mean: mean(sample), ones: sample.filter((x) => x === 1).length });
    const intervals = bootstrapIntervals(items, both, ["mean", "ones"], { resamples: 250, seed: 6 });
    expect(intervals.mean).toEqual(bootstrapCI(items, mean, { resamples: 250, seed: 6 }));
    expect(intervals.ones).toEqual(bootstrapCI(items, (sample) => both(sample).ones, { resamples: 250, seed: 6 }));
  });

  it("refuses an empty sample, no names, and NaN under any name", () => {
    expect(() => bootstrapIntervals([], () => ({ a: 0 }), ["a"], { seed: 0 })).toThrow(/empty sample/);
    expect(() => bootstrapIntervals([1], () => ({}), [], { seed: 0 })).toThrow(/at least one statistic/);
    expect(() => bootstrapIntervals([1, 2], () => ({ a: 0, b: Number.NaN }), ["a", "b"], { seed: 0, resamples: 3 })).toThrow(/NaN on the original items \(b\)/);
    expect(() => bootstrapIntervals([1, 2], (s) => ({ a: 0, b: s.join() === "1,2" ? 0 : Number.NaN }), ["a", "b"], { seed: 0, resamples: 50 })).toThrow(/NaN on resample \d+ \(b\)/);
  });
});
