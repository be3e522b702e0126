import { describe, expect, it } from "vitest";
import {
  buildThinkPrmDecisionMessages,
  buildThinkPrmMessages,
  parseThinkPrmVerification,
  THINKPRM_STOP_STRINGS,
  thinkPrmDecisionScore,
  type TokenLogprob,
} from "../../../src/judge/protocols";

// Formats from github.com/mukhal/ThinkPRM, commit 0beccfb: the prompt of utils/helper.py
// (format_verification_cot_for_thinkprm), the requests of prm/thinkprm_api.py and the
// `\boxed{correct}` / `\boxed{incorrect}` step decisions read in dataset/prm_dataset.py.

const PROBLEM = "What is $2 + 3 \\times 4$?";

describe("ThinkPRM requests", () => {
  it("numbers the steps from 1, stripping a leading `Step N:` and whitespace, inside the trained template", () => {
    const request = buildThinkPrmMessages({ problem: PROBLEM, steps: ["Step 1: First multiply: $3 \\times 4 = 12$.  ", "  Then add: $2 + 12 = 14$.", "Step 3:The answer is $14$."] });
    expect(request.messages).toEqual([
      {
        role: "user",
        content:
          "You are given a math problem and a proposed step-by-step solution:\n\n[Math Problem]\n\nWhat is $2 + 3 \\times 4$?\n\n[Solution]\n\n" +
          "Step 1: First multiply: $3 \\times 4 = 12$.\nStep 2: Then add: $2 + 12 = 14$.\nStep 3: The answer is $14$.\n\n" +
          "Review and critique each step in the proposed solution to determine whether each step is correct. If the solution is incomplete, only verify the provided steps.",
      },
      { role: "assistant", content: "\nLet's verify step by step:" },
    ]);
    expect(request.stop).toEqual(["Is the solution correct?", "</think>", "Step 4:"]);
    expect(THINKPRM_STOP_STRINGS).toEqual(["Is the solution correct?", "</think>"]);
  });

  it("fills the slots by plain replacement, problem first, as the source does", () => {
    const content = buildThinkPrmMessages({ problem: "Costs $& or {solution}?", steps: ["$1"] }).messages[0]!.content;
    expect(content).toContain("[Math Problem]\n\nCosts $& or Step 1: $1?\n\n[Solution]\n\nStep 1: $1\n\n");
  });

  it("keeps `Step N:` that is not at the start of a step", () => {
    const request = buildThinkPrmMessages({ problem: "p", steps: ["as in Step 2: below"] });
    expect(request.messages[0]!.content).toContain("Step 1: as in Step 2: below");
  });

  it("asks for the decision after the verification and the predecision string", () => {
    const request = buildThinkPrmMessages({ problem: PROBLEM, steps: ["a", "b"] });
    const decision = buildThinkPrmDecisionMessages(request.messages, "\nStep 1: fine. \\boxed{correct}\nStep 2: fine. \\boxed{correct}");
    expect(decision[0]).toEqual(request.messages[0]);
    expect(decision).toHaveLength(2);
    expect(decision[1]).toEqual({
      role: "assistant",
      content: "\nLet's verify step by step:\nStep 1: fine. \\boxed{correct}\nStep 2: fine. \\boxed{correct}\nIs the solution correct? ",
    });
    expect(() => buildThinkPrmDecisionMessages([request.messages[0]!], "x")).toThrow(/assistant/);
  });
});

// A verification chain as ThinkPRM-1.5B writes it (the CoT format of its training data).
const CHAIN_ALL_CORRECT = [
  "",
  "Step 1: The step multiplies first, as the order of operations requires: $3 \\times 4 = 12$. This is \\boxed{correct}",
  "Step 2: Adding $2 + 12 = 14$ is right. This step is \\boxed{\\text{correct}}",
  "Step 3: The final answer $14$ follows. This step is \\boxed{correct}",
  "",
].join("\n");

const CHAIN_WITH_ERROR = [
  "",
  "Step 1: The step computes $3 \\times 4 = 12$, which is right. The step is \\boxed{correct}",
  "Step 2: The step adds $2 + 12$ and gets $15$, but $2 + 12 = 14$. The step is \\boxed{incorrect}",
  "",
].join("\n");

describe("ThinkPRM verification parsing", () => {
  it("reads one decision per step in order, with its rationale", () => {
    const parsed = parseThinkPrmVerification(CHAIN_ALL_CORRECT, 3);
    expect(parsed.verdicts).toEqual(["Positive", "Positive", "Positive"]);
    expect(parsed.predictedFirstError).toBe(-1);
    expect(parsed.problem).toBeUndefined();
    expect(parsed.rationales).toHaveLength(3);
    expect(parsed.rationales[0]).toBe("\nStep 1: The step multiplies first, as the order of operations requires: $3 \\times 4 = 12$. This is \\boxed{correct}");
    expect(parsed.rationales[1]).toBe("\nStep 2: Adding $2 + 12 = 14$ is right. This step is \\boxed{\\text{correct}}");
    expect(parsed.rationales.join("") + "\n").toBe(CHAIN_ALL_CORRECT);
  });

  it("stops at the first incorrect step: the later steps are not judged", () => {
    const parsed = parseThinkPrmVerification(CHAIN_WITH_ERROR, 4);
    expect(parsed).toMatchObject({ verdicts: ["Positive", "Negative"], predictedFirstError: 1 });
    expect(parsed.rationales[1]).toContain("gets $15$");
    expect(parseThinkPrmVerification("Step 1: wrong. \\boxed{\\text{incorrect}}", 3)).toMatchObject({ verdicts: ["Negative"], predictedFirstError: 0 });
  });

  it("takes the first Negative even when the chain goes on judging", () => {
    const parsed = parseThinkPrmVerification("\\boxed{correct} \\boxed{incorrect} \\boxed{correct}", 3);
    expect(parsed).toMatchObject({ verdicts: ["Positive", "Negative"], predictedFirstError: 1 });
  });

  it("records a chain cut before the last step, without a Negative, as unparseable", () => {
    const cut = CHAIN_ALL_CORRECT.slice(0, CHAIN_ALL_CORRECT.indexOf("Step 3:") + 20);
    const parsed = parseThinkPrmVerification(cut, 3);
    expect(parsed.predictedFirstError).toBeNull();
    expect(parsed.problem).toBe("decisions-run-out");
    expect(parsed.verdicts).toEqual(["Positive", "Positive"]);
  });

  it("records a chain without any decision as unparseable", () => {
    expect(parseThinkPrmVerification("Step 1: looks fine.\nStep 2: looks fine.", 2)).toEqual({
      verdicts: [],
      rationales: [],
      predictedFirstError: null,
      problem: "no-decision",
    });
  });

  it("does not read other boxes (\\boxed{maybe}, \\boxed{Correct}) as decisions", () => {
    const parsed = parseThinkPrmVerification("Step 1: ok \\boxed{correct}\nStep 2: unsure \\boxed{maybe}", 2);
    expect(parsed).toMatchObject({ verdicts: ["Positive"], predictedFirstError: null, problem: "decisions-run-out" });
    expect(parseThinkPrmVerification("\\boxed{Correct}", 1).problem).toBe("no-decision");
  });

  it("records more decisions than steps as unparseable for every step", () => {
    const parsed = parseThinkPrmVerification("\\boxed{correct} \\boxed{correct} \\boxed{correct}", 2);
    expect(parsed).toEqual({ verdicts: ["unparseable", "unparseable"], rationales: [], predictedFirstError: null, problem: "more-decisions-than-steps" });
  });

  it("has nothing to read for a solution without steps", () => {
    expect(parseThinkPrmVerification("\\boxed{correct}", 0).problem).toBe("no-steps");
  });
});

function decisionToken(token: string, top: [string, number][]): TokenLogprob {
  const own = top.find(([text]) => text === token);
  return { token, logprob: own ? own[1] : -0.1, top: top.map(([text, logprob]) => ({ token: text, logprob })) };
}

describe("ThinkPRM decision score", () => {
  it("is P(yes) normalised over yes and no", () => {
    const token = decisionToken("yes", [
      ["yes", Math.log(0.6)],
      ["no", Math.log(0.2)],
      ["Yes", Math.log(0.1)],
    ]);
    expect(thinkPrmDecisionScore(token)).toBeCloseTo(0.75, 12);
  });

  it("matches labels with surrounding whitespace trimmed but case-sensitively", () => {
    const token = decisionToken(" no", [
      [" no", Math.log(0.5)],
      [" yes", Math.log(0.3)],
      ["YES", Math.log(0.15)],
    ]);
    expect(thinkPrmDecisionScore(token)).toBeCloseTo(0.375, 12);
  });

  it("counts a missing label as probability 0, and has no score with neither", () => {
    expect(thinkPrmDecisionScore(decisionToken("no", [["no", -0.01], ["No", -5]]))).toBe(0);
    expect(thinkPrmDecisionScore(decisionToken("yes", [["yes", -0.01], ["Yes", -5]]))).toBe(1);
    expect(thinkPrmDecisionScore(decisionToken("Yes", [["Yes", -0.01], ["No", -5]]))).toBeNull();
    expect(thinkPrmDecisionScore(undefined)).toBeNull();
  });

  it("ignores log-probabilities that are not numbers", () => {
    expect(thinkPrmDecisionScore(decisionToken("maybe", [["yes", Number.NaN], ["no", Number.NaN]]))).toBeNull();
  });

  it("takes custom labels", () => {
    expect(thinkPrmDecisionScore(decisionToken("Yes", [["Yes", Math.log(0.9)], ["No", Math.log(0.1)]]), { positive: "Yes", negative: "No" })).toBeCloseTo(0.9, 12);
  });

  it("stays finite for very unlikely labels", () => {
    expect(thinkPrmDecisionScore(decisionToken("no", [["no", 0], ["yes", -1000]]))).toBeGreaterThanOrEqual(0);
  });
});
