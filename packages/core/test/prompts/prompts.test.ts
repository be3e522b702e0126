import { describe, expect, it } from "vitest";
import {
  buildChunkSegmenterPrompt,
  buildProcessBenchCriticPrompt,
  buildSelfSegmentingPolicyPrompt,
  buildStepwiserJudgePrompt,
  CHUNK_SEGMENTER_PROMPT,
  definePromptTemplate,
  EMPTY_JUDGE_HISTORY,
  fillPromptTemplate,
  formatJudgeHistory,
  formatProcessBenchParagraphs,
  getPromptTemplate,
  isPromptTemplateId,
  PROCESSBENCH_CRITIC_PROMPT,
  PROCESSBENCH_CRITIC_PROMPT_V2,
  PROMPT_TEMPLATE_IDS,
  PROMPT_TEMPLATES,
  PromptError,
  SELF_SEGMENTING_POLICY_PROMPT,
  SELF_SEGMENTING_POLICY_PROMPT_V2,
  STEPWISER_JUDGE_PROMPT,
  toChatPrompt,
} from "../../src/prompts";

/** Text that would break naive `{slot}` replacement or `String.replace` patterns. */
const TRICKY = "Let {problem} be $& and $1, {history} {chunk} $$ \\boxed{x} {tagged_response} {solution}";

describe("prompt templates", () => {
  it("keep their stable ids", () => {
    expect(PROMPT_TEMPLATE_IDS).toMatchInlineSnapshot(`
      [
        "self-segmenting-policy@v1",
        "self-segmenting-policy@v2",
        "chunk-segmenter@v1",
        "stepwiser-judge@v1",
        "stepwiser-judge@v2",
        "processbench-critic@v1",
        "processbench-critic@v2",
        "outcome-pointwise@v1",
        "outcome-pairwise@v1",
      ]
    `);
    for (const id of PROMPT_TEMPLATE_IDS) {
      const template = PROMPT_TEMPLATES[id];
      expect(template.id).toBe(id);
      expect(id).toBe(`${template.name}@v${template.version}`);
    }
  });

  it("never change a published version's text (a change needs a new version)", () => {
    for (const id of PROMPT_TEMPLATE_IDS) expect(PROMPT_TEMPLATES[id].text).toMatchSnapshot(id);
  });

  it("use every declared slot and are frozen", () => {
    for (const id of PROMPT_TEMPLATE_IDS) {
      const template = PROMPT_TEMPLATES[id];
      for (const slot of template.slots) expect(template.text).toContain(`{${slot}}`);
      expect(Object.isFrozen(template)).toBe(true);
    }
  });

  it("look up by id, and name the known ids for an unknown one", () => {
    expect(getPromptTemplate("stepwiser-judge@v1")).toBe(STEPWISER_JUDGE_PROMPT);
    expect(isPromptTemplateId("stepwiser-judge@v1")).toBe(true);
    expect(isPromptTemplateId("toString")).toBe(false);
    expect(() => getPromptTemplate("stepwiser-judge@v9")).toThrow(
      'unknown prompt template "stepwiser-judge@v9"; known templates: self-segmenting-policy@v1, self-segmenting-policy@v2, chunk-segmenter@v1, stepwiser-judge@v1, stepwiser-judge@v2, processbench-critic@v1, processbench-critic@v2',
    );
    expect(() => getPromptTemplate("constructor")).toThrow(PromptError);
  });
});

describe("self-segmenting policy prompt", () => {
  it("holds the key lines verbatim", () => {
    const { text } = SELF_SEGMENTING_POLICY_PROMPT;
    expect(text).toContain("Enclose each part of your step-by-step reasoning within <chunk> and </chunk> tags.");
    expect(text).toContain("After completing the chain-of-thought reasoning, provide the final answer within \\boxed{}.");
    expect(text).toContain("Problem: {problem}");
    expect(text).toContain("Start a new chunk as soon as the focus shifts.");
  });

  it("inserts the problem literally", () => {
    for (const template of [SELF_SEGMENTING_POLICY_PROMPT, SELF_SEGMENTING_POLICY_PROMPT_V2]) {
      const prompt = buildSelfSegmentingPolicyPrompt({ problem: TRICKY }, template.id);
      expect(prompt.templateId).toBe(template.id);
      expect(prompt.text.endsWith(`Problem: ${TRICKY}`)).toBe(true);
      expect(prompt.text).toBe(template.text.replace("{problem}", () => TRICKY));
    }
  });
});

describe("segmenter prompt", () => {
  it("states the rules and asks for the same text in chunk tags, nothing else", () => {
    const { text } = CHUNK_SEGMENTER_PROMPT;
    expect(text).toContain("A chunk is one logical step with a single purpose.");
    expect(text).toContain("One clear objective per chunk.");
    expect(text).toContain("Start a new chunk as soon as the focus shifts.");
    expect(text).toContain("Start a new chunk at each new phase");
    expect(text).toContain("<chunk> and </chunk>");
    expect(text).toContain("the original text, unaltered");
    expect(text).toContain("Reply with the same text wrapped in chunk tags and nothing else");
  });

  it("ends with the solution, inserted literally", () => {
    const solution = `Step 1: ${TRICKY}\n\nStep 2: done`;
    const prompt = buildChunkSegmenterPrompt({ solution });
    expect(prompt.templateId).toBe("chunk-segmenter@v1");
    expect(prompt.text.endsWith(`Solution:\n${solution}`)).toBe(true);
  });
});

describe("StepWiser judge prompt", () => {
  it("holds the key lines verbatim", () => {
    const { text } = STEPWISER_JUDGE_PROMPT;
    for (const line of [
      'You are a reasoning validator for mathematical problems. Your task is to think step by step and determine if the "New Reasoning Chunk" contains any explicit errors based on the problem description and historical context.',
      "It is OK that the chunk does not contain any numerical calculation.",
      "Use Positive if the reasoning chunk is free of mistakes.",
      "Use Negative if the reasoning chunk contains one or more mistakes.",
      "Mathematical Problem: {problem}",
      "Historical Reasoning Path: {history}",
      "New Reasoning Chunk: {chunk}",
      "Final Judgment: \\boxed{Positive}",
      "\\boxed{Negative}",
    ]) {
      expect(text).toContain(line);
    }
    expect(text).toMatch(/goal of the new reasoning chunk[\s\S]*check its logic/);
    expect(text.endsWith("Final Judgment: \\boxed{Negative}")).toBe(true);
  });

  it("joins the previous chunks with a blank line and fills every slot literally, in either version", () => {
    for (const templateId of ["stepwiser-judge@v1", "stepwiser-judge@v2"] as const) {
      const prompt = buildStepwiserJudgePrompt(
        {
          problem: "Find {x}: $x + 1 = 3$.",
          previousChunks: ["Subtract 1.", { text: "So $x = 2$ and {chunk} stays." }],
          chunk: "Check: $2 + 1 = 3$ ✓ {history}",
        },
        templateId,
      );
      expect(prompt.templateId).toBe(templateId);
      expect(prompt.text).toContain("Mathematical Problem: Find {x}: $x + 1 = 3$.\n");
      expect(prompt.text).toContain("Historical Reasoning Path: Subtract 1.\n\nSo $x = 2$ and {chunk} stays.\n");
      expect(prompt.text).toContain("New Reasoning Chunk: Check: $2 + 1 = 3$ ✓ {history}\n");
    }
  });

  it("renders an empty history as an explicit placeholder", () => {
    expect(formatJudgeHistory([])).toBe(EMPTY_JUDGE_HISTORY);
    const prompt = buildStepwiserJudgePrompt({ problem: "p", previousChunks: [], chunk: "c" });
    expect(prompt.text).toContain("Historical Reasoning Path: (none: this is the first chunk)\n");
  });
});

describe("ProcessBench critic prompt", () => {
  it("explains the 0-based paragraph tags and asks for the earliest error index or -1 in \\boxed{}", () => {
    const { text } = PROCESSBENCH_CRITIC_PROMPT;
    expect(text).toContain("wrapped in tags that give its index, counting from 0");
    expect(text).toContain("Stop at the first paragraph that contains a mistake and report its index");
    expect(text).toContain("report -1");
    expect(text).toContain("Put only the index (or -1) inside \\boxed{} at the end of your answer.");
  });

  it("wraps paragraphs as <paragraph_i> from 0 and inserts them literally", () => {
    expect(formatProcessBenchParagraphs(["a", { text: "b\nc" }])).toBe("<paragraph_0>\na\n</paragraph_0>\n\n<paragraph_1>\nb\nc\n</paragraph_1>");
    const prompt = buildProcessBenchCriticPrompt({ problem: TRICKY, steps: ["x = $&", "{problem}"] }, "processbench-critic@v1");
    expect(prompt.templateId).toBe("processbench-critic@v1");
    expect(prompt.text).toContain(`Problem:\n${TRICKY}\n\nSolution:\n<paragraph_0>\nx = $&\n</paragraph_0>\n\n<paragraph_1>\n{problem}\n</paragraph_1>\n\nCheck the solution`);
  });
});

describe("ProcessBench critic prompt v2 (the official template)", () => {
  it("renders QwenLM/ProcessBench code/templates/critique_template.txt filled as code/run_eval.py fills it", () => {
    // The official file with `{{}}` read by str.format as `{}`, and prepare_input_boxed's
    // tagging: `<paragraph_{sdx}>\n{step}\n</paragraph_{sdx}>\n\n` per step from 0, stripped.
    const expected = `The following is a math problem and a solution (split into paragraphs, enclosed with tags and indexed from 0):

[Math Problem]

Tom has 3 apples and buys 4 more. How many apples does he have?

[Solution]

<paragraph_0>
Tom starts with 3 apples and buys 4, so 3 + 4 = 7.
</paragraph_0>

<paragraph_1>
So the answer is \\boxed{7}.
</paragraph_1>

Your task is to review and critique the solution paragraph by paragraph. Once you identify an error in a paragraph, return the index of the paragraph where the earliest error occurs. Otherwise, return the index of -1 (which typically denotes "not found").

Please put your final answer (i.e., the index) in \\boxed{}.`;
    const prompt = buildProcessBenchCriticPrompt({
      problem: "Tom has 3 apples and buys 4 more. How many apples does he have?",
      steps: ["Tom starts with 3 apples and buys 4, so 3 + 4 = 7.", { text: "So the answer is \\boxed{7}." }],
    });
    expect(prompt.templateId).toBe("processbench-critic@v2");
    expect(prompt.text).toBe(expected);
    expect(buildProcessBenchCriticPrompt({ problem: "p", steps: ["a"] }, "processbench-critic@v2")).toEqual(buildProcessBenchCriticPrompt({ problem: "p", steps: ["a"] }));
  });

  it("is a new version of the same name, with v1 still resolvable", () => {
    expect(PROCESSBENCH_CRITIC_PROMPT_V2.id).toBe("processbench-critic@v2");
    expect(PROCESSBENCH_CRITIC_PROMPT_V2.slots).toEqual(["problem", "tagged_response"]);
    expect(getPromptTemplate("processbench-critic@v2")).toBe(PROCESSBENCH_CRITIC_PROMPT_V2);
    expect(getPromptTemplate("processbench-critic@v1")).toBe(PROCESSBENCH_CRITIC_PROMPT);
  });

  it("inserts values literally", () => {
    const prompt = buildProcessBenchCriticPrompt({ problem: TRICKY, steps: ["x = $&"] });
    expect(prompt.text).toContain(`[Math Problem]\n\n${TRICKY}\n\n[Solution]\n\n<paragraph_0>\nx = $&\n</paragraph_0>\n\nYour task is`);
  });
});

describe("filling templates", () => {
  it("fills by id as well, and gives a chat form with the same wording", () => {
    const prompt = fillPromptTemplate(getPromptTemplate("self-segmenting-policy@v1"), { problem: "1 + 1?" });
    expect(prompt).toEqual(buildSelfSegmentingPolicyPrompt({ problem: "1 + 1?" }, "self-segmenting-policy@v1"));
    expect(toChatPrompt(prompt)).toEqual({ templateId: "self-segmenting-policy@v1", messages: [{ role: "user", content: prompt.text }] });
  });

  it("refuses missing, unknown and non-string slot values", () => {
    const template = getPromptTemplate("stepwiser-judge@v1");
    const kindOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof PromptError ? error.kind : "other";
      }
      return "none";
    };
    expect(kindOf(() => fillPromptTemplate(template, { problem: "p", history: "h" }))).toBe("missing-slot");
    expect(kindOf(() => fillPromptTemplate(template, { problem: "p", history: "h", chunk: "c", answer: "a" }))).toBe("unknown-slot");
    expect(kindOf(() => fillPromptTemplate(template, { problem: "p", history: "h", chunk: 3 as unknown as string }))).toBe("invalid-slot-value");
    expect(() => fillPromptTemplate(template, { problem: "p", history: "h" })).toThrow("prompt template stepwiser-judge@v1: no value for slot {chunk}");
  });

  it("refuses templates that declare a slot they never use, or a bad version", () => {
    expect(() => definePromptTemplate({ name: "t", version: 1, purpose: "", slots: ["a"], text: "no slot" })).toThrow(
      "prompt template t@v1: slot {a} is declared but never used in the text",
    );
    expect(() => definePromptTemplate({ name: "t", version: 0, purpose: "", slots: [], text: "" })).toThrow(PromptError);
  });

  it("leaves braces that are not declared slots alone", () => {
    const template = definePromptTemplate({ name: "t", version: 2, purpose: "", slots: ["x"], text: "{x} in \\boxed{y} and {z}" });
    expect(template.id).toBe("t@v2");
    expect(fillPromptTemplate(template, { x: "{z}" }).text).toBe("{z} in \\boxed{y} and {z}");
  });
});
