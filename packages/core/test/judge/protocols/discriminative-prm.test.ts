import { describe, expect, it } from "vitest";
import {
  buildPoolingInput,
  DEFAULT_PRM_THRESHOLD,
  DEFAULT_PRM_VARIANT,
  firstNegativeStep,
  PRM_VARIANT_IDS,
  readStepProbabilities,
  stepVerdicts,
} from "../../../src/judge/protocols";

// Request and response shapes of vLLM's pooling API (POST /pooling on a model served with
// `--runner pooling`): Qwen2.5-Math-PRM's chat layout with `<extra_0>` after every step (its
// model card), and Math-Shepherd's `ки` step tag.

const PROBLEM = "Sue has 3 apples and buys 4 more. How many does she have?";
const STEPS = ["She starts with 3 apples.", "After buying 4 she has 3 + 4 = 8.", "The answer is 8."];

function poolingBody(pairs: unknown): unknown {
  return { id: "pool-1", object: "list", created: 1764170000, model: "Qwen/Qwen2.5-Math-PRM-7B", data: [{ index: 0, object: "pooling", data: pairs }], usage: { prompt_tokens: 97, total_tokens: 97, completion_tokens: 0 } };
}

describe("pooling requests", () => {
  it("lists the variants with Qwen2.5-Math-PRM first, the default", () => {
    expect(PRM_VARIANT_IDS).toEqual(["qwen2.5-math-prm", "math-shepherd"]);
    expect(DEFAULT_PRM_VARIANT).toBe("qwen2.5-math-prm");
    expect(DEFAULT_PRM_THRESHOLD).toBe(0.5);
  });

  it("joins Qwen2.5-Math-PRM steps with <extra_0>, one after the last step too", () => {
    expect(buildPoolingInput("qwen2.5-math-prm", { problem: PROBLEM, steps: STEPS })).toEqual({
      messages: [
        { role: "system", content: "Please reason step by step, and put your final answer within \\boxed{}." },
        { role: "user", content: PROBLEM },
        { role: "assistant", content: "She starts with 3 apples.<extra_0>After buying 4 she has 3 + 4 = 8.<extra_0>The answer is 8.<extra_0>" },
      ],
    });
  });

  it("writes Math-Shepherd's input with numbered steps, each ending with the step tag", () => {
    expect(buildPoolingInput("math-shepherd", { problem: PROBLEM, steps: STEPS })).toEqual({
      input: `${PROBLEM} Step 1: She starts with 3 apples. ки\nStep 2: After buying 4 she has 3 + 4 = 8. ки\nStep 3: The answer is 8. ки`,
    });
  });
});

describe("pooling responses", () => {
  it("reads the positive class of each step: index 1 for Qwen2.5-Math-PRM, 0 for Math-Shepherd", () => {
    const body = poolingBody([
      [0.0123, 0.9877],
      [0.8941, 0.1059],
      [0.7302, 0.2698],
    ]);
    expect(readStepProbabilities("qwen2.5-math-prm", body, 3)).toEqual({ scores: [0.9877, 0.1059, 0.2698] });
    expect(readStepProbabilities("math-shepherd", body, 3)).toEqual({ scores: [0.0123, 0.8941, 0.7302] });
  });

  it("turns scores into verdicts at the threshold, inclusive, and finds the first Negative", () => {
    const verdicts = stepVerdicts([0.9877, 0.5, 0.1059, 0.9]);
    expect(verdicts).toEqual(["Positive", "Positive", "Negative", "Positive"]);
    expect(firstNegativeStep(verdicts)).toBe(2);
    expect(stepVerdicts([0.9877, 0.5], 0.6)).toEqual(["Positive", "Negative"]);
    expect(firstNegativeStep(stepVerdicts([0.9, 0.8]))).toBe(-1);
  });

  it("records a different number of pairs than steps as unparseable", () => {
    const body = poolingBody([
      [0.1, 0.9],
      [0.2, 0.8],
    ]);
    expect(readStepProbabilities("qwen2.5-math-prm", body, 3)).toMatchObject({ problem: "wrong-step-count" });
    expect(readStepProbabilities("qwen2.5-math-prm", body, 1)).toMatchObject({ problem: "wrong-step-count" });
  });

  it("records values that are not probabilities as unparseable", () => {
    for (const bad of [
      [Number.NaN, 0.5],
      [-0.1, 1.1],
      [0.3, 1.7],
      ["0.5", 0.5],
      [0.5],
      [0.2, 0.3, 0.5],
      0.5,
      null,
    ]) {
      expect(readStepProbabilities("qwen2.5-math-prm", poolingBody([[0.1, 0.9], bad]), 2)).toMatchObject({ problem: "not-probabilities" });
    }
  });

  it("records a body that is not a pooling response as unparseable", () => {
    for (const body of [null, "error", { object: "error", message: "Internal Server Error" }, { data: [] }, { data: [{ data: "x" }] }, { data: [{ data: [] }, { data: [] }] }]) {
      expect(readStepProbabilities("qwen2.5-math-prm", body, 2)).toMatchObject({ problem: "not-a-pooling-response" });
    }
  });
});
