import { describe, expect, it } from "vitest";
import { lowestQValue, solutionLabelStats } from "../../src";

describe("solution label stats", () => {
  it("takes the first error and the Negative count from the primary labelling", () => {
    const stats = solutionLabelStats([
      ["Positive", "Negative", "Positive", "Negative"],
      ["Positive", "Negative", "Positive", "Negative"],
    ]);
    expect(stats).toEqual({ firstNegative: 1, negativeCount: 2, labelsDisagree: false });
  });

  it("reports disagreement when any chunk differs between labellings", () => {
    const stats = solutionLabelStats([
      ["Positive", "Positive", "Positive"],
      ["Positive", "Negative", "Positive"],
    ]);
    expect(stats).toEqual({ firstNegative: -1, negativeCount: 0, labelsDisagree: true });
  });

  it("treats a labelling of a different length as a disagreement and an empty list as no error", () => {
    expect(solutionLabelStats([["Positive"], []]).labelsDisagree).toBe(true);
    expect(solutionLabelStats([])).toEqual({ firstNegative: -1, negativeCount: 0, labelsDisagree: false });
  });

  it("finds the lowest estimated Q-value and skips unestimated prefixes", () => {
    expect(lowestQValue([0.5, null, 0.25, 1])).toBe(0.25);
    expect(lowestQValue([null, null])).toBeNull();
  });
});
