import { describe, expect, it } from "vitest";
import { ceilTwoDigits, emptySplitWarnings, heldOutFractionFor, heldOutProblemCount } from "../src/kinds/export/training-set/split";

describe("ceilTwoDigits", () => {
  it("rounds up to two significant digits, keeping values that already have two", () => {
    expect(ceilTwoDigits(1 / 3)).toBe(0.34);
    expect(ceilTwoDigits(2 / 3)).toBe(0.67);
    expect(ceilTwoDigits(0.1)).toBe(0.1);
    expect(ceilTwoDigits(0.25)).toBe(0.25);
    expect(ceilTwoDigits(1 / 7)).toBe(0.15);
    expect(ceilTwoDigits(0.00123)).toBe(0.0013);
    expect(ceilTwoDigits(0.5)).toBe(0.5);
  });
});

describe("heldOutFractionFor", () => {
  it("is the smallest two-digit fraction that holds out at least that many problems and leaves one to train on", () => {
    expect(heldOutFractionFor(2, 10)).toBe(0.2);
    expect(heldOutFractionFor(2, 7)).toBe(0.29);
    expect(heldOutFractionFor(1, 3)).toBe(0.34);
    for (const [wanted, problems] of [[2, 10], [2, 7], [3, 9], [5, 11], [123, 1000]] as const) {
      const fraction = heldOutFractionFor(wanted, problems)!;
      expect(heldOutProblemCount(problems, fraction)).toBeGreaterThanOrEqual(wanted);
      expect(problems - heldOutProblemCount(problems, fraction)).toBeGreaterThanOrEqual(1);
    }
  });

  it("is undefined when no fraction up to 0.5 does it", () => {
    expect(heldOutFractionFor(2, 3)).toBeUndefined();
    expect(heldOutFractionFor(1, 1)).toBeUndefined();
    expect(heldOutFractionFor(0, 5)).toBeUndefined();
  });
});

describe("emptySplitWarnings", () => {
  const sizes = { heldOutFraction: 0.1, trainProblems: 9, testProblems: 1, trainRows: 40, testRows: 4 };

  it("says nothing when both splits have rows, or when no test split was asked for", () => {
    expect(emptySplitWarnings(sizes)).toEqual([]);
    expect(emptySplitWarnings({ ...sizes, heldOutFraction: 0, trainProblems: 10, testProblems: 0, testRows: 0 })).toEqual([]);
  });

  it("an empty test split: the problem count, and a fraction that holds out one more problem", () => {
    expect(emptySplitWarnings({ ...sizes, testRows: 0 })).toEqual([
      "the test split is empty: held-out fraction 0.1 holds out 1 of 10 problems, and no row of it is left after filtering and balancing; --held-out 0.2 holds out 2 of them",
    ]);
    expect(emptySplitWarnings({ heldOutFraction: 0.5, trainProblems: 2, testProblems: 1, trainRows: 6, testRows: 0 })).toEqual([
      "the test split is empty: held-out fraction 0.5 holds out 1 of 3 problems, and no row of it is left after filtering and balancing; no held-out fraction up to 0.5 holds out more of them",
    ]);
  });

  it("a single problem cannot be split", () => {
    expect(emptySplitWarnings({ heldOutFraction: 0.2, trainProblems: 1, testProblems: 0, trainRows: 5, testRows: 0 })).toEqual([
      "the test split is empty: held-out fraction 0.2 asks for one, but the labels cover 1 problem, and all of a problem's rows go to one split; label more problems, or pass --held-out 0 to export without a test split",
    ]);
  });

  it("an empty train split, and both empty", () => {
    expect(emptySplitWarnings({ ...sizes, trainRows: 0 })).toEqual(["the train split is empty: no row of its 9 problems (of 10 problems) is left after filtering and balancing"]);
    expect(emptySplitWarnings({ ...sizes, trainRows: 0, testRows: 0 })).toEqual(["both splits are empty: no row of the 10 problems is left after filtering and balancing"]);
    expect(emptySplitWarnings({ ...sizes, trainProblems: 0, testProblems: 0, trainRows: 0, testRows: 0 })).toEqual([]);
  });
});
