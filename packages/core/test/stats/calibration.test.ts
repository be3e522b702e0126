import { describe, expect, it } from "vitest";
import { calibrationReport, expectedCalibrationError, reliabilityBins } from "../../src/stats";

describe("calibration", () => {
  it("bins probabilities and weighs the gaps (hand fixture)", () => {
    const items = [
      { probability: 0.1, outcome: false },
      { probability: 0.1, outcome: 0 as const },
      { probability: 0.3, outcome: true }, // on the 0.3 edge → bin [0.3, 0.4)
      { probability: 0.9, outcome: true },
      { probability: 0.95, outcome: 1 as const },
      { probability: 1, outcome: false }, // 1 belongs to the last bin
    ];
    // bin 1: n = 2, mean 0.1, rate 0   → gap 0.1
    // bin 3: n = 1, mean 0.3, rate 1   → gap 0.7
    // bin 9: n = 3, mean (0.9 + 0.95 + 1)/3 = 0.95, rate 2/3 → gap 0.95 − 2/3
    // ECE = (2·0.1 + 1·0.7 + 3·(0.95 − 2/3))/6 = (0.2 + 0.7 + 0.85)/6 = 1.75/6 = 7/24
    const report = calibrationReport(items);
    expect(report.total).toBe(6);
    expect(report.bins).toHaveLength(10);
    expect(report.bins.map((b) => b.count)).toEqual([0, 2, 0, 1, 0, 0, 0, 0, 0, 3]);
    expect(report.bins[1]).toMatchObject({ lower: 0.1, upper: 0.2, meanPredicted: 0.1, observedRate: 0 });
    expect(report.bins[9]!.meanPredicted).toBeCloseTo(0.95, 15);
    expect(report.bins[9]!.observedRate).toBeCloseTo(2 / 3, 15);
    expect(report.bins[0]).toEqual({ lower: 0, upper: 0.1, count: 0, meanPredicted: null, observedRate: null });
    expect(report.expectedCalibrationError).toBeCloseTo(7 / 24, 14);
    expect(expectedCalibrationError(items)).toBe(report.expectedCalibrationError);
    expect(reliabilityBins(items)).toEqual(report.bins);
  });

  it("is 0 for perfectly calibrated predictions and for no items", () => {
    // bin [0.2, 0.3): five at 0.2, one happens → rate 0.2; bin [0.8, 0.9): five at 0.8, four happen.
    const items = [
      ...[true, false, false, false, false].map((outcome) => ({ probability: 0.2, outcome })),
      ...[true, true, true, true, false].map((outcome) => ({ probability: 0.8, outcome })),
    ];
    expect(expectedCalibrationError(items)).toBeCloseTo(0, 15);
    expect(expectedCalibrationError([])).toBe(0);
  });

  it("honours the bin count", () => {
    // 2 bins: [0, 0.5) gets 0.2 (outcome 1, gap 0.8), [0.5, 1] gets 0.5 (outcome 0, gap 0.5)
    // ECE = (0.8 + 0.5)/2 = 0.65
    const items = [
      { probability: 0.2, outcome: true },
      { probability: 0.5, outcome: false },
    ];
    const r = calibrationReport(items, { bins: 2 });
    expect(r.bins.map((b) => b.count)).toEqual([1, 1]);
    expect(r.expectedCalibrationError).toBeCloseTo(0.65, 15);
  });

  it("rejects out-of-range probabilities and bad bin counts", () => {
    expect(() => calibrationReport([{ probability: 1.2, outcome: true }])).toThrow(/record 0, field "probability"/);
    expect(() => calibrationReport([{ probability: Number.NaN, outcome: true }])).toThrow(/\[0, 1\]/);
    expect(() => calibrationReport([{ probability: 0.5, outcome: 2 as unknown as boolean }])).toThrow(/outcome/);
    expect(() => calibrationReport([], { bins: 0 })).toThrow(/bins/);
  });
});
