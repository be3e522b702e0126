import { describe, expect, it } from "vitest";
import {
  buildGenPrmMessages,
  codeOutputBlock,
  genPrmAnalyzeContinuation,
  genPrmCompletedText,
  genPrmContinuation,
  genPrmExecutionContinuation,
  genPrmFallbackContinuation,
  genPrmVerifyContinuation,
  genPrmYesProbability,
  lastPythonBlock,
  parseGenPrmVerdict,
  type TokenLogprob,
} from "../../../src/judge/protocols";

// Formats from github.com/RyanLiu112/GenPRM, commit cc80f47: the conversation of
// src/prm_evaluation/prm_evaluate.py and the templates, stop strings, code loop and reward
// rule of src/prm_evaluation/genprm_inference.py.

const PROBLEM = "Compute $7 \\cdot 8 - 6$.";
const STEPS = ["First, $7 \\cdot 8 = 56$.", "Then $56 - 6 = 40$.", "The answer is $40$."];

// A step output in GenPRM's format (analysis, verification code, code output, judgement).
const STEP1_OUTPUT =
  "<analyze>\nLet's analyze the Paragraph 1 step by step: The paragraph multiplies 7 by 8 and gets 56, which is correct.\n</analyze>\n" +
  "<verify>\nLet's use python code to find any potential error:\n```python\nprint(7 * 8)\n```\n[Code Output]\n\n```\n56\n```\n" +
  "The product is 56, as the paragraph says.\n</verify>\n<output>\n**Judgement**: $\\boxed{Yes}$\n</output>\n";
const STEP2_OUTPUT =
  "<analyze>\nLet's analyze the Paragraph 2 step by step: $56 - 6$ is $50$, not $40$.\n</analyze>\n" +
  "<verify>\nLet's use python code to find any potential error:\n```python\nprint(56 - 6)\n```\n[Code Output]\n\n```\n50\n```\n" +
  "The code gives 50, so the paragraph is wrong.\n</verify>\n<output>\n**Judgement**: $\\boxed{No}$\n</output>\n";

describe("GenPRM conversation", () => {
  it("puts the problem before the first step and earlier judgements between the steps", () => {
    expect(buildGenPrmMessages({ problem: PROBLEM, steps: STEPS, position: 0, previousOutputs: [] })).toEqual([
      { role: "system", content: "You are a math teacher. Your task is to review and critique the paragraphs in solution step by step." },
      { role: "user", content: "Compute $7 \\cdot 8 - 6$.\nFirst, $7 \\cdot 8 = 56$." },
    ]);
    const third = buildGenPrmMessages({ problem: PROBLEM, steps: STEPS, position: 2, previousOutputs: [STEP1_OUTPUT, STEP2_OUTPUT] });
    expect(third.map((message) => message.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(third[2]!.content).toBe(STEP1_OUTPUT);
    expect(third[3]!.content).toBe("Then $56 - 6 = 40$.");
    expect(third[5]!.content).toBe("The answer is $40$.");
  });

  it("refuses a position outside the steps or the wrong number of earlier outputs", () => {
    expect(() => buildGenPrmMessages({ problem: PROBLEM, steps: STEPS, position: 3, previousOutputs: ["a", "b", "c"] })).toThrow(/position 3/);
    expect(() => buildGenPrmMessages({ problem: PROBLEM, steps: STEPS, position: 1, previousOutputs: [] })).toThrow(/outputs of the 1 steps/);
  });

  it("continues the analysis, then the verification, with GenPRM's templates and stop strings", () => {
    const base = buildGenPrmMessages({ problem: PROBLEM, steps: STEPS, position: 1, previousOutputs: [STEP1_OUTPUT] });
    const a = genPrmAnalyzeContinuation(2);
    expect(a).toEqual({ prefix: "<analyze>\nLet's analyze the Paragraph 2 step by step: ", stop: ["</analyze>\n"] });
    expect(genPrmContinuation(base, a).at(-1)).toEqual({ role: "assistant", content: a.prefix });
    expect(genPrmContinuation(base, a)).toHaveLength(base.length + 1);

    const analysis = "$56 - 6$ is $50$, not $40$.\n";
    const b = genPrmVerifyContinuation(2, analysis);
    expect(b).toEqual({
      prefix:
        "<analyze>\nLet's analyze the Paragraph 2 step by step: $56 - 6$ is $50$, not $40$.\n</analyze>\n" +
        "<verify>\nLet's use python code to find any potential error:\n```python\n",
      stop: ["</output>\n"],
    });
    // A server that returns the stop string with the text gives the same request.
    expect(genPrmVerifyContinuation(2, analysis + "</analyze>\n")).toEqual(b);
    expect(genPrmVerifyContinuation(2, analysis, { execute: true }).stop).toEqual(["\n```\n", "</output>\n"]);

    const generated = "print(56 - 6)\n```\n[Code Output]\n\n```\n50\n```\nThe code gives 50, so the paragraph is wrong.\n</verify>\n<output>\n**Judgement**: $\\boxed{No}$\n";
    expect(genPrmCompletedText(b, generated, "</output>\n")).toBe(STEP2_OUTPUT);
    expect(genPrmCompletedText(b, generated + "</output>\n", "</output>\n")).toBe(STEP2_OUTPUT);
    expect(genPrmCompletedText(b, generated, null)).toBe(b.prefix + generated);
  });

  it("runs code round by round and falls back to the analysis alone", () => {
    const b = genPrmVerifyContinuation(1, "It multiplies correctly.\n", { execute: true });
    const round1 = "print(7 * 8)\n```\n";
    const next = genPrmExecutionContinuation(b, round1, "56\n");
    expect(next.prefix).toBe(b.prefix + "print(7 * 8)\n```\n[Code Output]\n\n```\n56\n```\n");
    expect(next.stop).toEqual(b.stop);
    expect(lastPythonBlock(b.prefix + round1)).toBe("print(7 * 8)");
    expect(lastPythonBlock("```python\nx = 1\n```\ntext\n```python\n  print(x + 1)  \n```\n")).toBe("print(x + 1)");
    expect(lastPythonBlock("no code here")).toBeNull();
    expect(codeOutputBlock("  Code execute Error: NameError: name 'y' is not defined\n")).toBe(
      "[Code Output]\n\n```\nCode execute Error: NameError: name 'y' is not defined\n```\n",
    );
    expect(genPrmFallbackContinuation(1, "It multiplies correctly.\n</analyze>\nleftover")).toEqual({
      prefix: "<analyze>\nLet's analyze the Paragraph 1 step by step: It multiplies correctly.\n</analyze>\n<output>\n**Judgement**: $\\boxed",
      stop: ["</output>\n"],
      maxTokens: 20,
    });
  });
});

describe("GenPRM verdicts", () => {
  it("reads the first Yes} / No} of the step output", () => {
    expect(parseGenPrmVerdict(STEP1_OUTPUT)).toBe("Positive");
    expect(parseGenPrmVerdict(STEP2_OUTPUT)).toBe("Negative");
    expect(parseGenPrmVerdict("<output>\n**Judgement**: $\\boxed{yes}$\n</output>\n")).toBe("Positive");
    // GenPRM's rule takes the first match, even inside the analysis.
    expect(parseGenPrmVerdict("<analyze>\nIs it \\text{No}? </analyze>\n<output>\n**Judgement**: $\\boxed{Yes}$\n</output>\n")).toBe("Negative");
  });

  it("records an output without a decision as unparseable (GenPRM would score it 0.5)", () => {
    expect(parseGenPrmVerdict("<analyze>\nLet's analyze the Paragraph 1 step by step: The paragraph")).toBe("unparseable");
    expect(parseGenPrmVerdict("<output>\n**Judgement**: $\\boxed{Maybe}$\n</output>\n")).toBe("unparseable");
    expect(parseGenPrmVerdict("<output>\n**Judgement**: $\\boxed")).toBe("unparseable");
  });
});

function tok(token: string, logprob: number, top: [string, number][] = []): TokenLogprob {
  return { token, logprob, top: top.map(([text, lp]) => ({ token: text, logprob: lp })) };
}

describe("GenPRM step score", () => {
  // The tail of request B's tokens: `$\boxed{Yes}$\n` after "**Judgement**: $\boxed".
  const yesTail = [
    tok("{", -0.001, [["{", -0.001]]),
    tok("Yes", Math.log(0.8), [["Yes", Math.log(0.8)], ["No", Math.log(0.2)], ["yes", -6]]),
    tok("}$", -0.01, [["}$", -0.01]]),
    tok("\n", -0.01, [["\n", -0.01]]),
  ];

  it("is P(Yes) over Yes and No at the decision token", () => {
    expect(genPrmYesProbability(yesTail, "Positive")).toBeCloseTo(0.8, 12);
    const noTail = [tok("{", -0.001), tok("No", Math.log(0.7), [["No", Math.log(0.7)], ["Yes", Math.log(0.1)]]), tok("}$", -0.01)];
    expect(genPrmYesProbability(noTail, "Negative")).toBeCloseTo(0.125, 12);
  });

  it("takes the last decision token, not an earlier one in the verification", () => {
    const tokens = [tok("Yes", Math.log(0.5), [["Yes", Math.log(0.5)], ["No", Math.log(0.5)]]), ...yesTail];
    expect(genPrmYesProbability(tokens, "Positive")).toBeCloseTo(0.8, 12);
  });

  it("uses the smallest listed log-probability when the other word is missing", () => {
    const tokens = [tok("Yes", Math.log(0.9), [["Yes", Math.log(0.9)], ["yes", Math.log(0.05)], [" Yes", Math.log(0.01)]])];
    expect(genPrmYesProbability(tokens, "Positive")).toBeCloseTo(0.9 / 0.91, 12);
  });

  it("has no score without a verdict or a decision token", () => {
    expect(genPrmYesProbability(yesTail, "unparseable")).toBeNull();
    expect(genPrmYesProbability(yesTail, "Negative")).toBeNull();
    expect(genPrmYesProbability([], "Positive")).toBeNull();
    expect(genPrmYesProbability([tok("Yes", Number.NaN)], "Positive")).toBeNull();
  });
});
