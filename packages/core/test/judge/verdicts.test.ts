import { describe, expect, it } from "vitest";
import { judgeReward, majorityVerdict, parseVerdict, positiveShare, predictFirstError } from "../../src/judge";

describe("verdict parsing", () => {
  it("reads the last balanced box, case-insensitively", () => {
    expect(parseVerdict("Analysis ... Final Judgment: \\boxed{Positive}").verdict).toBe("Positive");
    expect(parseVerdict("\\boxed{negative}").verdict).toBe("Negative");
    expect(parseVerdict("first \\boxed{Positive}, on reflection \\boxed{NEGATIVE}").verdict).toBe("Negative");
    expect(parseVerdict("\\boxed{ \\text{Positive} }")).toEqual({ verdict: "Positive", boxed: " \\text{Positive} " });
  });

  it("never guesses: anything else is unparseable, with the reason", () => {
    expect(parseVerdict("The chunk is Positive.")).toEqual({ verdict: "unparseable", boxed: null, problem: "no-boxed" });
    expect(parseVerdict("\\boxed{Correct}")).toMatchObject({ verdict: "unparseable", boxed: "Correct", problem: "not-a-verdict" });
    expect(parseVerdict("\\boxed{Positive or Negative}").verdict).toBe("unparseable");
    expect(parseVerdict("\\boxed{Positive").verdict).toBe("unparseable"); // unbalanced
    // the last balanced box decides even when an earlier one was a verdict
    expect(parseVerdict("\\boxed{Positive} ... \\boxed{42}").verdict).toBe("unparseable");
  });

  it("nested braces inside the box are balanced", () => {
    expect(parseVerdict("\\boxed{\\textbf{Negative}}").verdict).toBe("Negative");
    expect(parseVerdict("\\boxed{\\frac{1}{2}}")).toMatchObject({ verdict: "unparseable", boxed: "\\frac{1}{2}" });
  });
});

describe("majority vote", () => {
  it("takes the majority of parsed samples; unparseable ones abstain", () => {
    expect(majorityVerdict(["Positive", "Positive", "Negative", "unparseable"])).toEqual({
      verdict: "Positive",
      positive: 2,
      negative: 1,
      unparseable: 1,
      tie: false,
    });
    expect(majorityVerdict(["unparseable", "unparseable"]).verdict).toBe("unparseable");
    expect(majorityVerdict([]).verdict).toBe("unparseable");
  });

  it("breaks ties toward Negative unless configured otherwise", () => {
    const tied = ["Positive", "Negative", "Positive", "Negative"] as const;
    expect(majorityVerdict(tied)).toMatchObject({ verdict: "Negative", tie: true });
    expect(majorityVerdict(tied, "Positive")).toMatchObject({ verdict: "Positive", tie: true });
  });

  it("positive share counts parsed samples only", () => {
    expect(positiveShare(["Positive", "Negative", "Positive", "unparseable"])).toBeCloseTo(2 / 3);
    expect(positiveShare(["unparseable"])).toBeNull();
  });
});

describe("solution-level prediction and reward", () => {
  it("predicts the first Negative chunk, -1 when none", () => {
    expect(predictFirstError(["Positive", "Positive", "Negative", "Negative"])).toBe(2);
    expect(predictFirstError(["Positive", "Positive"])).toBe(-1);
    expect(predictFirstError([])).toBe(-1);
  });

  it("an unparseable chunk before any Negative makes the prediction unknown by default", () => {
    expect(predictFirstError(["Positive", "unparseable", "Negative"])).toBeNull();
    expect(predictFirstError(["Negative", "unparseable"])).toBe(0);
    expect(predictFirstError(["Positive", "unparseable", "Negative"], "Positive")).toBe(2);
    expect(predictFirstError(["Positive", "unparseable", "Negative"], "Negative")).toBe(1);
  });

  it("GRPO reward is 1 iff the verdict equals the label", () => {
    expect(judgeReward("Positive", "Positive")).toBe(1);
    expect(judgeReward("Negative", "Positive")).toBe(0);
    expect(judgeReward("unparseable", "Negative")).toBe(0);
  });
});
