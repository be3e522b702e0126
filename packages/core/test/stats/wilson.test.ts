import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../src/stats/wilson";

describe("wilsonInterval", () => {
  it("matches the published 95 % interval of 5 successes in 10 trials (0.2366, 0.7634)", () => {
    const ci = wilsonInterval(5, 10)!;
    expect(ci.estimate).toBe(0.5);
    expect(ci.lower).toBeCloseTo(0.2365931, 6);
    expect(ci.upper).toBeCloseTo(0.7634069, 6);
  });

  it("matches statsmodels' proportion_confint(81, 263, method='wilson')", () => {
    const ci = wilsonInterval(81, 263)!;
    expect(ci.lower).toBeCloseTo(0.2553, 3);
    expect(ci.upper).toBeCloseTo(0.3662, 3);
  });

  it("stays in [0, 1] and keeps width at 0 and n successes", () => {
    const none = wilsonInterval(0, 10)!;
    expect(none.lower).toBe(0);
    // z² / (n + z²): the upper end of the Wilson interval at 0 successes.
    expect(none.upper).toBeCloseTo(3.841458820694124 / 13.841458820694124, 12);
    const all = wilsonInterval(10, 10)!;
    expect(all.upper).toBe(1);
    expect(all.lower).toBeCloseTo(1 - none.upper, 12);
  });

  it("narrows as trials grow at the same proportion", () => {
    const small = wilsonInterval(3, 10)!;
    const large = wilsonInterval(300, 1000)!;
    expect(large.upper - large.lower).toBeLessThan(small.upper - small.lower);
    expect(large.lower).toBeLessThan(0.3);
    expect(large.upper).toBeGreaterThan(0.3);
  });

  it("has no interval without trials and refuses impossible counts", () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(11, 10)).toThrow(/successes must be an integer from 0 to trials \(10\), got 11/);
    expect(() => wilsonInterval(1.5, 10)).toThrow(/successes/);
    expect(() => wilsonInterval(0, -1)).toThrow(/trials must be a non-negative integer/);
  });
});
