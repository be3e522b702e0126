import { describe, expect, it } from "vitest";
import {
  bootstrapCI,
  confusionMatrix,
  binaryMetrics,
  createRng,
  pairedBootstrapCI,
  quantileSorted,
  type LabeledPrediction,
} from "../../src/stats";

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

// A fixed, roughly symmetric sample: 0..39 plus a little jitter from a fixed seed.
const sample = (() => {
  const rng = createRng("bootstrap-fixture");
  return Array.from({ length: 40 }, (_, i) => i + rng.nextFloat());
})();

describe("type-7 quantiles", () => {
  it("interpolates like numpy.percentile", () => {
    // [1, 2, 3, 4]: h = 3p. p = 0.25 → h = 0.75 → 1 + 0.75·(2 − 1) = 1.75
    expect(quantileSorted([1, 2, 3, 4], 0.25)).toBe(1.75);
    // p = 0.5 → h = 1.5 → 2.5; p = 0 → 1; p = 1 → 4
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0)).toBe(1);
    expect(quantileSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(quantileSorted([0, Infinity, Infinity], 0.9)).toBe(Infinity);
    expect(() => quantileSorted([1], 1.5)).toThrow(RangeError);
  });
});

describe("percentile bootstrap", () => {
  it("is reproducible for a seed", () => {
    const first = bootstrapCI(sample, mean, { seed: 11 });
    expect(bootstrapCI(sample, mean, { seed: 11 })).toEqual(first);
    expect(first).toMatchObject({ resamples: 1000, confidence: 0.95, seed: 11 });
  });

  it("changes with the seed", () => {
    const a = bootstrapCI(sample, mean, { seed: 1 });
    const b = bootstrapCI(sample, mean, { seed: 2 });
    // Same estimate, different resamples: with continuous data the bounds differ.
    expect(a.estimate).toBe(b.estimate);
    expect([a.lower, a.upper]).not.toEqual([b.lower, b.upper]);
  });

  it("brackets the mean with a sensible width", () => {
    const r = bootstrapCI(sample, mean, { seed: "mean" });
    expect(r.estimate).toBe(mean(sample));
    expect(r.lower).toBeLessThan(r.estimate);
    expect(r.upper).toBeGreaterThan(r.estimate);
    // sd of 0..39 ≈ 11.5, standard error ≈ 11.5/√40 ≈ 1.83, so a 95% interval is
    // ≈ ±3.6 around ≈ 20; allow generous slack for the resampling noise.
    expect(r.upper - r.lower).toBeGreaterThan(5);
    expect(r.upper - r.lower).toBeLessThan(10);
  });

  it("narrows with a lower confidence", () => {
    const wide = bootstrapCI(sample, mean, { seed: 5, confidence: 0.99 });
    const narrow = bootstrapCI(sample, mean, { seed: 5, confidence: 0.5 });
    // Same seed → same replicates; only the quantiles read off them differ.
    expect(narrow.lower).toBeGreaterThan(wide.lower);
    expect(narrow.upper).toBeLessThan(wide.upper);
  });

  it("collapses to the constant for a constant sample", () => {
    const r = bootstrapCI([0.1, 0.1, 0.1, 0.1], mean, { seed: 3, resamples: 200 });
    // Every replicate is four copies of 0.1; ((0.1 + 0.1) + 0.1) + 0.1 rounds to 0.4
    // and 0.4 / 4 to 0.1, so the bounds equal the constant exactly, not approximately.
    expect(r).toMatchObject({ estimate: 0.1, lower: 0.1, upper: 0.1 });
  });

  it("resamples item indices with nextInt(n) from the seeded stream", () => {
    // One resample of items 0..9: the replicate is the mean of ten draws of
    // nextInt(10) from createRng(99), so lower = upper = that mean.
    const rng = createRng(99);
    const expected = mean(Array.from({ length: 10 }, () => rng.nextInt(10)));
    const items = Array.from({ length: 10 }, (_, i) => i);
    const r = bootstrapCI(items, mean, { seed: 99, resamples: 1 });
    expect(r.lower).toBe(expected);
    expect(r.upper).toBe(expected);
  });

  it("works with a metric statistic whose denominators can vanish", () => {
    // 3 Negative items among 30: many resamples contain few or none; the
    // zero-denominator convention keeps every replicate a number.
    const items: LabeledPrediction[] = [
      ...Array.from({ length: 27 }, () => ({ gold: "Positive", predicted: "Positive" }) as const),
      { gold: "Negative", predicted: "Negative" },
      { gold: "Negative", predicted: "Positive" },
      { gold: "Negative", predicted: "unparseable" },
    ];
    const f1 = (xs: readonly LabeledPrediction[]) => binaryMetrics(confusionMatrix(xs)).negative.f1;
    const r = bootstrapCI(items, f1, { seed: 4 });
    // Negative: TP 1, predicted 1, support 3 → F1 = 2·1/(1 + 3) = 0.5
    expect(r.estimate).toBe(0.5);
    expect(r.lower).toBeGreaterThanOrEqual(0);
    expect(r.upper).toBeLessThanOrEqual(1);
  });

  it("refuses NaN statistics, empty samples and bad options", () => {
    expect(() => bootstrapCI([1, 2], () => Number.NaN, { seed: 1 })).toThrow(/NaN/);
    expect(() => bootstrapCI([], mean, { seed: 1 })).toThrow(/empty/);
    expect(() => bootstrapCI([1], mean, { seed: 1, resamples: 0 })).toThrow(/resamples/);
    expect(() => bootstrapCI([1], mean, { seed: 1, confidence: 1 })).toThrow(/confidence/);
    expect(() => bootstrapCI([1], mean, { seed: 1.5 })).toThrow(/seed/);
  });
});

describe("paired bootstrap", () => {
  it("gives exactly the shift when B is A minus a constant on every item", () => {
    const b = sample.map((x) => x - 2);
    const r = pairedBootstrapCI(sample, b, mean, { seed: 8 });
    // Every resample takes the same items from both, so mean(A') − mean(B') = 2 ± rounding.
    expect(r.estimate).toBeCloseTo(2, 12);
    expect(r.estimateA).toBe(mean(sample));
    expect(r.estimateB).toBe(mean(b));
    expect(r.lower).toBeCloseTo(2, 12);
    expect(r.upper).toBeCloseTo(2, 12);
  });

  it("is far narrower than the unpaired intervals when items dominate the variance", () => {
    // A beats B by 0.5 ± a little noise per item; item spread (0..39) dwarfs that.
    const rng = createRng("noise");
    const b = sample.map((x) => x - 0.5 + (rng.nextFloat() - 0.5) * 0.2);
    const paired = pairedBootstrapCI(sample, b, mean, { seed: 9 });
    const alone = bootstrapCI(sample, mean, { seed: 9 });
    expect(paired.lower).toBeGreaterThan(0);
    expect(paired.upper - paired.lower).toBeLessThan((alone.upper - alone.lower) / 10);
  });

  it("is reproducible and zero for identical systems", () => {
    const r = pairedBootstrapCI(sample, sample, mean, { seed: 1, resamples: 100 });
    expect(r).toMatchObject({ estimate: 0, lower: 0, upper: 0, resamples: 100 });
    expect(pairedBootstrapCI(sample, sample.map((x) => x * 0.9), mean, { seed: 1 })).toEqual(
      pairedBootstrapCI(sample, sample.map((x) => x * 0.9), mean, { seed: 1 }),
    );
  });

  it("requires both systems on the same items", () => {
    expect(() => pairedBootstrapCI([1, 2], [1], mean, { seed: 1 })).toThrow(/same items/);
    expect(() => pairedBootstrapCI([], [], mean, { seed: 1 })).toThrow(/empty/);
  });
});

describe("paired bootstrap p-value", () => {
  it("shares the interval of pairedBootstrapCI and reads p off the same replicates", async () => {
    const { pairedBootstrapTest } = await import("../../src/stats");
    const a = sample.map((x) => x + 1);
    const test = pairedBootstrapTest(a, sample, mean, { seed: 9, resamples: 500 });
    const ci = pairedBootstrapCI(a, sample, mean, { seed: 9, resamples: 500 });
    expect({ ...test, pValue: undefined }).toEqual({ ...ci, pValue: undefined });
    // Every resampled difference is exactly 1: none ≤ 0.
    expect(test.pValue).toBe(0);
    expect(pairedBootstrapTest(sample, sample, mean, { seed: 9 }).pValue).toBe(1);
  });

  it("is about 2·P(difference ≤ 0) when that is the smaller tail", async () => {
    const { pairedBootstrapTest } = await import("../../src/stats");
    // a − b per item: 1, 1, 0. A resample's mean difference is 0 only when it draws item 2 three times: (1/3)³.
    const test = pairedBootstrapTest([1, 1, 0], [0, 0, 0], mean, { seed: 4, resamples: 20_000 });
    expect(test.pValue).toBeCloseTo(2 / 27, 1);
    expect(test.pValue).toBeGreaterThan(0.05);
  });
});
