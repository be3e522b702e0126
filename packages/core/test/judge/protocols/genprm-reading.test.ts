import { describe, expect, it } from "vitest";
import { genPrmFirstError, genPrmStepScore, genPrmStepVerdict, majorityVerdict, predictFirstError, type Verdict } from "../../../src/judge";

/** A step's samples: each with its text verdict and its P(Yes) (null when the output had no decision). */
type Sample = { verdict: Verdict; pYes: number | null };

/** The first error by majority text verdict (the reading before GenPRM's evaluator was followed). */
function byMajorityText(steps: Sample[][]): number | null {
  return predictFirstError(steps.map((samples) => majorityVerdict(samples.map((s) => s.verdict), "Negative").verdict));
}

/** The first error as GenPRM's aggregation/processbench.py reads it. */
function byMeanPYes(steps: Sample[][]): number {
  return genPrmFirstError(steps.map((samples) => genPrmStepScore(samples.map((s) => s.pYes))!));
}

const yes = (pYes: number): Sample => ({ verdict: "Positive", pYes });
const no = (pYes: number): Sample => ({ verdict: "Negative", pYes });
const undecided: Sample = { verdict: "unparseable", pYes: null };

describe("GenPRM's ProcessBench reading: mean P(Yes) below 0.5", () => {
  it("scores a step by the mean P(Yes) over its samples, 0.5 for a sample without a decision", () => {
    expect(genPrmStepScore([0.9, 0.2, null])).toBeCloseTo((0.9 + 0.2 + 0.5) / 3, 12);
    expect(genPrmStepScore([null, null])).toBe(0.5);
    expect(genPrmStepScore([])).toBeNull();
    expect(genPrmStepVerdict(0.5)).toBe("Positive"); // r >= thr is a correct step
    expect(genPrmStepVerdict(0.4999)).toBe("Negative");
  });

  it("differs from the majority text verdict where a confident No outweighs two hesitant Yes", () => {
    // Step 1: two Yes at P(Yes) 0.55, one No at 0.05 -> majority Positive, mean 0.383 -> an error.
    const steps = [[yes(0.95)], [yes(0.55), yes(0.55), no(0.05)], [no(0.1)]];
    expect(byMajorityText(steps)).toBe(2);
    expect(byMeanPYes(steps)).toBe(1);
  });

  it("differs where a majority of hesitant No is outweighed by a confident Yes", () => {
    // Step 0: two No at P(Yes) 0.45, one Yes at 0.99 -> majority Negative, mean 0.63 -> correct.
    const steps = [[no(0.45), no(0.45), yes(0.99)], [yes(0.9), yes(0.9), yes(0.9)]];
    expect(byMajorityText(steps)).toBe(0);
    expect(byMeanPYes(steps)).toBe(-1);
  });

  it("counts an undecided output as 0.5, where the text reading cannot read it", () => {
    // Step 0 has no decision at all: the text reading gives no prediction; GenPRM's gives 0.5, a correct step.
    const steps = [[undecided], [no(0.2)]];
    expect(byMajorityText(steps)).toBeNull();
    expect(byMeanPYes(steps)).toBe(1);
    // An undecided sample pulls a hesitant step below 0.5 or above it like a neutral vote.
    expect(byMeanPYes([[yes(0.6), undecided, no(0.35)]])).toBe(0); // mean 0.483
  });

  it("agrees with the text reading where every sample is sure", () => {
    const steps = [[yes(0.99), yes(0.97)], [yes(0.96), yes(0.98)], [no(0.01), no(0.03)]];
    expect(byMeanPYes(steps)).toBe(byMajorityText(steps));
  });
});
