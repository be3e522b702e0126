import { createRng, EMPTY_JUDGE_HISTORY, parseVerdict, type Label } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { SimPromptError, type SimModel } from "../../src/sim/model";
import { createSimJudge, parseJudgePrompt, probabilityOfPositive, SIM_JUDGE_PRESETS, type SimJudgePresetId } from "../../src/sim/models";
import { generateProblem, sampleSolutionChunks, truthOfSolution } from "../../src/sim/world";
import { chat, generate, judgePrompt, MIA_RIGHT, MIA_TEXT, tolerance } from "./helpers";

interface JudgeCase {
  prompt: string;
  truth: Label;
}

/** 2,000 chunks of sampled solutions (about a third of them wrong), with their judge prompts and true labels. */
function sampledChunks(count: number): JudgeCase[] {
  const cases: JudgeCase[] = [];
  const rates = { errorRate: 0.3, recoveryRate: 0.3 };
  for (let seed = 0; cases.length < count; seed++) {
    const problem = generateProblem(seed);
    const chunks = sampleSolutionChunks(problem, rates, createRng(seed));
    const truth = truthOfSolution(problem, chunks);
    chunks.forEach((chunk, i) => {
      if (cases.length < count) {
        cases.push({ prompt: judgePrompt(problem.text, chunks.slice(0, i), chunk), truth: truth.chunks[i]!.correct ? "Positive" : "Negative" });
      }
    });
  }
  return cases;
}

const N = 2000;
const cases = sampledChunks(N);

function rates(judge: SimModel, temperature = 1) {
  const counts = { Positive: { n: 0, saidPositive: 0, right: 0 }, Negative: { n: 0, saidPositive: 0, right: 0 } };
  let unparseable = 0;
  cases.forEach(({ prompt, truth }, seed) => {
    const { verdict } = parseVerdict(generate(judge, chat(prompt), seed, temperature));
    if (verdict === "unparseable") {
      unparseable++;
      return;
    }
    counts[truth].n++;
    if (verdict === "Positive") counts[truth].saidPositive++;
    if (verdict === truth) counts[truth].right++;
  });
  const parseable = counts.Positive.n + counts.Negative.n;
  return {
    accuracy: (counts.Positive.right + counts.Negative.right) / parseable,
    positiveGivenPositive: counts.Positive.saidPositive / counts.Positive.n,
    positiveGivenNegative: counts.Negative.saidPositive / counts.Negative.n,
    unparseable: unparseable / cases.length,
    counts,
  };
}

describe("sim-judge", () => {
  it("reads the prompt built by core's buildStepwiserJudgePrompt", () => {
    const first = judgePrompt(MIA_TEXT, [], MIA_RIGHT[0]);
    expect(first).toContain(EMPTY_JUDGE_HISTORY);
    expect(parseJudgePrompt(first)).toEqual({ problem: MIA_TEXT, history: [], chunk: MIA_RIGHT[0] });
    expect(parseJudgePrompt(judgePrompt(MIA_TEXT, MIA_RIGHT.slice(0, 2), MIA_RIGHT[2]))).toEqual({
      problem: MIA_TEXT,
      history: MIA_RIGHT.slice(0, 2),
      chunk: MIA_RIGHT[2],
    });
    expect(parseJudgePrompt(`<|im_start|>user\n${first}<|im_end|>\n<|im_start|>assistant\n`)?.chunk).toBe(MIA_RIGHT[0]);
    expect(parseJudgePrompt("Is this right?")).toBeNull();
    expect(() => generate(createSimJudge(), chat("Is this right?"))).toThrow(SimPromptError);
  });

  it("has sampled chunks of both labels to be judged on", () => {
    const negatives = cases.filter((c) => c.truth === "Negative").length;
    expect(negatives).toBeGreaterThan(400);
    expect(N - negatives).toBeGreaterThan(400);
  });

  it("answers the truth with the configured accuracy when unbiased", () => {
    for (const accuracy of [0.95, 0.7]) {
      const measured = rates(createSimJudge({ id: "judge-test", accuracy, positiveBias: 0, unparseableRate: 0 }));
      expect(measured.unparseable).toBe(0);
      expect(Math.abs(measured.accuracy - accuracy)).toBeLessThan(tolerance(accuracy, N));
    }
  });

  it.each(Object.keys(SIM_JUDGE_PRESETS) as SimJudgePresetId[])("%s matches its preset", (id) => {
    const preset = SIM_JUDGE_PRESETS[id];
    const measured = rates(createSimJudge({ id }));
    const pp = probabilityOfPositive(preset, "Positive");
    const pn = probabilityOfPositive(preset, "Negative");
    expect(Math.abs(measured.positiveGivenPositive - pp)).toBeLessThan(tolerance(pp, measured.counts.Positive.n));
    expect(Math.abs(measured.positiveGivenNegative - pn)).toBeLessThan(tolerance(pn, measured.counts.Negative.n));
    expect(Math.abs(measured.unparseable - preset.unparseableRate)).toBeLessThan(tolerance(preset.unparseableRate, N));
  });

  it("positive bias moves answers toward Positive, up to collapse", () => {
    const unbiased = rates(createSimJudge({ id: "j", accuracy: 0.8, positiveBias: 0, unparseableRate: 0 }));
    const biased = rates(createSimJudge({ id: "j", accuracy: 0.8, positiveBias: 0.5, unparseableRate: 0 }));
    // P(Positive | Negative) = 0.2 + 0.8·0.5 = 0.6; P(Positive | Positive) = 0.8 + 0.2·0.5 = 0.9
    expect(biased.positiveGivenNegative).toBeGreaterThan(unbiased.positiveGivenNegative + 0.3);
    expect(biased.positiveGivenPositive).toBeGreaterThan(unbiased.positiveGivenPositive + 0.05);
    expect(Math.abs(biased.positiveGivenNegative - 0.6)).toBeLessThan(tolerance(0.6, biased.counts.Negative.n));
    const collapsed = rates(createSimJudge({ id: "j", accuracy: 0.8, positiveBias: 1, unparseableRate: 0 }));
    expect(collapsed.positiveGivenNegative).toBe(1);
    expect(collapsed.positiveGivenPositive).toBe(1);
  });

  it("decodes greedily like a real judge at temperature 0: the same verdict for a prompt every time, wrong on about (1 − accuracy) of prompts", () => {
    for (const id of Object.keys(SIM_JUDGE_PRESETS)) {
      const judge = createSimJudge({ id });
      const measured = rates(judge, 0);
      const expected = SIM_JUDGE_PRESETS[id as keyof typeof SIM_JUDGE_PRESETS].accuracy;
      expect(Math.abs(measured.accuracy - expected)).toBeLessThan(0.06);
      const { prompt } = cases[0]!;
      expect(generate(judge, chat(prompt), 1, 0)).toBe(generate(judge, chat(prompt), 99, 0)); // the seed does not matter
    }
  });

  it("writes a rationale naming the mistake, and ends with the boxed verdict", () => {
    const exact = createSimJudge({ id: "exact", accuracy: 1, positiveBias: 0, unparseableRate: 0 });
    const wrong = generate(exact, chat(judgePrompt(MIA_TEXT, [], "She buys 5 more: 12 + 5 = 18.")));
    expect(wrong).toContain("The goal of this chunk is to work out what happens when she buys 5 more.");
    expect(wrong).toContain("12 + 5 is 17, not 18");
    expect(wrong.endsWith("Final Judgment: \\boxed{Negative}")).toBe(true);
    const carried = generate(exact, chat(judgePrompt(MIA_TEXT, ["She buys 5 more: 12 + 5 = 18."], "She gives away 3: 18 - 3 = 15.")));
    expect(carried).toContain("should be 17");
    expect(parseVerdict(carried).verdict).toBe("Negative");
    const right = generate(exact, { kind: "completion", prompt: judgePrompt(MIA_TEXT, MIA_RIGHT.slice(0, 1), MIA_RIGHT[1]) });
    expect(right).toContain("17 - 3 = 14 is right");
    expect(parseVerdict(right).verdict).toBe("Positive");
    expect(generate(exact, chat(judgePrompt(MIA_TEXT, [], MIA_RIGHT[0])), 1)).toBe(generate(exact, chat(judgePrompt(MIA_TEXT, [], MIA_RIGHT[0])), 1));
  });

  it("falls back to the arithmetic check for chunks that are not from its world", () => {
    const exact = createSimJudge({ id: "exact", accuracy: 1, positiveBias: 0, unparseableRate: 0 });
    const problem = "Janet's ducks lay 16 eggs per day. She eats three for breakfast. How many are left?";
    const wrong = generate(exact, chat(judgePrompt(problem, [], "She has 16 - 3 = 12 eggs left.")));
    expect(parseVerdict(wrong).verdict).toBe("Negative");
    expect(wrong).toContain("16 - 3 is 13, not 12");
    expect(parseVerdict(generate(exact, chat(judgePrompt(problem, [], "She has 16 - 3 = 13 eggs left.")))).verdict).toBe("Positive");
    // World problem, foreign chunk: the arithmetic decides too.
    expect(parseVerdict(generate(exact, chat(judgePrompt(MIA_TEXT, [], "First, 12 + 5 = 17 marbles.")))).verdict).toBe("Positive");
  });
});
