import {
  buildProcessBenchCriticPrompt,
  CRITIC_PREDICTION_PARSERS,
  createRng,
  PROCESSBENCH_CRITIC_TEMPLATE_IDS,
  type ProcessBenchCriticTemplateId,
} from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { SimPromptError } from "../../src/sim/model";
import { createArithChecker, createSimJudge, parseCriticPrompt } from "../../src/sim/models";
import { generateProblem, sampleSolutionChunks, truthOfSolution } from "../../src/sim/world";
import { chat, chatContinuing, generate, judgePrompt, MIA_RIGHT, MIA_TEXT, tolerance } from "./helpers";

const criticPrompt = (templateId: ProcessBenchCriticTemplateId, problem: string, steps: readonly string[]) => buildProcessBenchCriticPrompt({ problem, steps }, templateId).text;
const MIA_WRONG = [MIA_RIGHT[0], "She gives away 3: 17 - 3 = 15.", "She doubles what she has: 15 × 2 = 30.", "So the answer is \\boxed{30}."];

describe("ProcessBench critic prompts in the simulated cluster", () => {
  it.each(PROCESSBENCH_CRITIC_TEMPLATE_IDS)("reads %s back: problem and paragraphs, unaltered", (templateId) => {
    const steps = ["  x = $& {problem}", "two\n\nlines with </paragraph_0> inside", "\\boxed{3}"];
    const text = criticPrompt(templateId, "What is {x}?\n\n[Solution]\n\nSolution:\n", steps);
    expect(parseCriticPrompt(text)).toEqual({ templateId, problem: "What is {x}?\n\n[Solution]\n\nSolution:\n", paragraphs: steps });
    expect(parseCriticPrompt(`<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`)).toEqual({ templateId, problem: "What is {x}?\n\n[Solution]\n\nSolution:\n", paragraphs: steps });
    expect(parseCriticPrompt(criticPrompt(templateId, "p", []))).toEqual({ templateId, problem: "p", paragraphs: [] });
  });

  it("reads no other prompt as a critic prompt", () => {
    expect(parseCriticPrompt(judgePrompt(MIA_TEXT, [], MIA_RIGHT[0]))).toBeNull();
    expect(parseCriticPrompt("Problem:\nx\n\nSolution:\n<paragraph_1>\na\n</paragraph_1>")).toBeNull();
    const v2 = criticPrompt("processbench-critic@v2", MIA_TEXT, MIA_RIGHT);
    expect(parseCriticPrompt(v2.replace("<paragraph_1>", "<paragraph_2>"))).toBeNull();
    expect(() => generate(createSimJudge({ id: "sim-judge-strong" }), chat("What is 2 + 2?"))).toThrow(SimPromptError);
  });

  it("arith-checker answers v2 exactly as it answers v1, and each template's parser reads its index", () => {
    const checker = createArithChecker();
    for (const [steps, firstError] of [
      [MIA_RIGHT, -1],
      [MIA_WRONG, 1],
    ] as const) {
      const answers = PROCESSBENCH_CRITIC_TEMPLATE_IDS.map((templateId) => generate(checker, chat(criticPrompt(templateId, MIA_TEXT, steps)), 0, 0));
      expect(answers[1]).toBe(answers[0]);
      for (const templateId of PROCESSBENCH_CRITIC_TEMPLATE_IDS) expect(CRITIC_PREDICTION_PARSERS[templateId](answers[0]!)).toBe(firstError);
    }
    const whole = generate(checker, chat(criticPrompt("processbench-critic@v2", MIA_TEXT, MIA_WRONG)));
    expect(generate(checker, chatContinuing(criticPrompt("processbench-critic@v2", MIA_TEXT, MIA_WRONG), whole.slice(0, 20)))).toBe(whole.slice(20));
  });

  it.each(PROCESSBENCH_CRITIC_TEMPLATE_IDS)("a simulated judge finds the first error of world solutions under %s as often as its accuracy allows", (templateId) => {
    const judge = createSimJudge({ id: "sim-judge-strong" });
    const parse = CRITIC_PREDICTION_PARSERS[templateId];
    let right = 0;
    let unparseable = 0;
    const n = 400;
    for (let seed = 0; seed < n; seed++) {
      const problem = generateProblem(seed);
      const chunks = sampleSolutionChunks(problem, { errorRate: 0.3, recoveryRate: 0.3 }, createRng(seed));
      const truth = truthOfSolution(problem, chunks);
      const prediction = parse(generate(judge, chat(criticPrompt(templateId, problem.text, chunks)), seed, 0));
      if (prediction === null) unparseable += 1;
      else if (prediction === truth.firstErrorIndex) right += 1;
    }
    // Each paragraph up to the first error must be judged right (0.95 each), and 1 % of answers are unparseable.
    expect(right / n).toBeGreaterThan(0.7);
    expect(unparseable / n).toBeLessThan(0.01 + tolerance(0.01, n));
  });

  it("writes unparseable answers that neither template's parser reads", () => {
    const judge = createSimJudge({ id: "odd", accuracy: 0.9, positiveBias: 0, unparseableRate: 1 });
    for (let seed = 0; seed < 30; seed++) {
      for (const templateId of PROCESSBENCH_CRITIC_TEMPLATE_IDS) {
        const answer = generate(judge, chat(criticPrompt(templateId, MIA_TEXT, seed % 2 ? MIA_WRONG : MIA_RIGHT)), seed, 1);
        for (const parser of Object.values(CRITIC_PREDICTION_PARSERS)) expect(parser(answer)).toBeNull();
      }
    }
  });
});
