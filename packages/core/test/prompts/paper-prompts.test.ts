import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildSelfSegmentingPolicyPrompt,
  buildStepwiserJudgePrompt,
  DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID,
  DEFAULT_STEPWISER_JUDGE_PROMPT_ID,
  SELF_SEGMENTING_POLICY_PROMPT_V2,
  STEPWISER_JUDGE_PROMPT_V2,
} from "../../src/prompts";

// The paper's Tables 3 and 11 as printed (fixtures/paper/README.md names the source).
const paper = (name: string) => readFileSync(new URL(`../fixtures/paper/${name}`, import.meta.url), "utf8");

/**
 * The words of a prompt, with what typesetting changes and wording does not: typographic
 * quotes and apostrophes as ASCII, list bullets ("•" in the paper, "- " in the template) left
 * out, any run of whitespace one space.
 */
function words(text: string): string[] {
  return text
    .replace(/[“”]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/^(?:•|-) /gm, "")
    .split(/\s+/)
    .filter((word) => word !== "");
}

/** Python's `str.format` reading of a printed template: `{{` and `}}` are literal braces. */
const formatUnescaped = (text: string) => text.replace(/\{\{/g, "{").replace(/\}\}/g, "}");

describe("the paper's prompts", () => {
  it("stepwiser-judge@v2 is Table 3 word for word, and the default", () => {
    expect(words(STEPWISER_JUDGE_PROMPT_V2.text)).toEqual(words(paper("table-3-judge.txt")));
    expect(DEFAULT_STEPWISER_JUDGE_PROMPT_ID).toBe("stepwiser-judge@v2");
  });

  it("self-segmenting-policy@v2 is Table 11 word for word (its \\boxed{{}} read as Python formats it), and the default", () => {
    expect(words(SELF_SEGMENTING_POLICY_PROMPT_V2.text)).toEqual(words(formatUnescaped(paper("table-11-policy.txt"))));
    expect(DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID).toBe("self-segmenting-policy@v2");
  });

  it("the word comparison catches a changed, missing or added word", () => {
    const table3 = words(paper("table-3-judge.txt"));
    expect(words(STEPWISER_JUDGE_PROMPT_V2.text.replace("definitive", "final"))).not.toEqual(table3);
    expect(words(STEPWISER_JUDGE_PROMPT_V2.text.replace(" explicit", ""))).not.toEqual(table3);
    expect(words(`${STEPWISER_JUDGE_PROMPT_V2.text} Thanks.`)).not.toEqual(table3);
  });

  it("keeps the table's layout: each part and each slot on a line of its own, ASCII only", () => {
    expect(STEPWISER_JUDGE_PROMPT_V2.text.split("\n")).toEqual(
      expect.arrayContaining(["Instruction:", "Input:", "Output format:", "Mathematical Problem: {problem}", "Historical Reasoning Path: {history}", "New Reasoning Chunk: {chunk}"]),
    );
    expect(SELF_SEGMENTING_POLICY_PROMPT_V2.text.endsWith("\n\nProblem: {problem}")).toBe(true);
    for (const text of [STEPWISER_JUDGE_PROMPT_V2.text, SELF_SEGMENTING_POLICY_PROMPT_V2.text]) expect(text).toMatch(/^[\x20-\x7e\n]*$/);
  });

  it("builds the default prompts from the paper's templates, the old wording on request", () => {
    const judge = buildStepwiserJudgePrompt({ problem: "P", previousChunks: ["a", "b"], chunk: "c" });
    expect(judge.templateId).toBe("stepwiser-judge@v2");
    expect(judge.text).toContain("Mathematical Problem: P\nHistorical Reasoning Path: a\n\nb\nNew Reasoning Chunk: c\n\nOutput format:");
    expect(buildStepwiserJudgePrompt({ problem: "P", previousChunks: [], chunk: "c" }, "stepwiser-judge@v1").templateId).toBe("stepwiser-judge@v1");
    const policy = buildSelfSegmentingPolicyPrompt({ problem: "What is 2+2?" });
    expect(policy.templateId).toBe("self-segmenting-policy@v2");
    expect(policy.text).toContain("provide the final answer within \\boxed{}. Ensure strict compliance");
    expect(policy.text.endsWith("Problem: What is 2+2?")).toBe(true);
    expect(buildSelfSegmentingPolicyPrompt({ problem: "x" }, "self-segmenting-policy@v1").templateId).toBe("self-segmenting-policy@v1");
  });
});
