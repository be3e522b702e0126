import { buildStepwiserJudgePrompt, createRng, EMPTY_JUDGE_HISTORY, parseVerdict, type Label } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { SimPromptError, type SimModel } from "../../src/sim/model";
import { createSimJudge, parseJudgePrompt, probabilityOfPositive, SIM_JUDGE_PRESETS, type SimJudgePresetId } from "../../src/sim/models";
import { generateProblem, sampleSolutionChunks, truthOfSolution, type ChunkVerdictReason } from "../../src/sim/world";
import { chat, generate, judgePrompt, MIA_RIGHT, MIA_TEXT, tolerance } from "./helpers";

interface JudgeCase {
  prompt: string;
  truth: Label;
  reason: ChunkVerdictReason;
}

/** 2,000 chunks of sampled solutions (about a third of them wrong), with their judge prompts, true labels and the world's reasons. */
function sampledChunks(count: number, firstSeed = 0): JudgeCase[] {
  const cases: JudgeCase[] = [];
  const rates = { errorRate: 0.3, recoveryRate: 0.3 };
  for (let seed = firstSeed; cases.length < count; seed++) {
    const problem = generateProblem(seed);
    const chunks = sampleSolutionChunks(problem, rates, createRng(seed));
    const truth = truthOfSolution(problem, chunks);
    chunks.forEach((chunk, i) => {
      if (cases.length < count) {
        const chunkTruth = truth.chunks[i]!;
        cases.push({ prompt: judgePrompt(problem.text, chunks.slice(0, i), chunk), truth: chunkTruth.correct ? "Positive" : "Negative", reason: chunkTruth.reason });
      }
    });
  }
  return cases;
}

const N = 2000;
const cases = sampledChunks(N);

function rates(judge: SimModel, temperature = 1, judged: readonly JudgeCase[] = cases) {
  const counts = { Positive: { n: 0, saidPositive: 0, right: 0 }, Negative: { n: 0, saidPositive: 0, right: 0 } };
  let unparseable = 0;
  judged.forEach(({ prompt, truth }, seed) => {
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
    unparseable: unparseable / judged.length,
    counts,
  };
}

/** The presets whose errors are all independent (no kind of chunk they are systematically wrong about). */
const INDEPENDENT_PRESETS = (Object.keys(SIM_JUDGE_PRESETS) as SimJudgePresetId[]).filter((id) => !("blindTo" in SIM_JUDGE_PRESETS[id]) && !("suspiciousOf" in SIM_JUDGE_PRESETS[id]));

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

  it("reads both versions of the judge prompt, each slot exactly", () => {
    for (const templateId of ["stepwiser-judge@v1", "stepwiser-judge@v2"] as const) {
      const text = buildStepwiserJudgePrompt({ problem: MIA_TEXT, previousChunks: MIA_RIGHT.slice(0, 2), chunk: MIA_RIGHT[2] }, templateId).text;
      expect(parseJudgePrompt(text)).toEqual({ problem: MIA_TEXT, history: MIA_RIGHT.slice(0, 2), chunk: MIA_RIGHT[2] });
      expect(parseJudgePrompt(`<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`)?.chunk).toBe(MIA_RIGHT[2]);
    }
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

  it.each(INDEPENDENT_PRESETS)("%s matches its preset", (id) => {
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
    expect(INDEPENDENT_PRESETS).toEqual(["sim-judge-strong", "sim-judge-medium", "sim-judge-weak"]);
    for (const id of INDEPENDENT_PRESETS) {
      const judge = createSimJudge({ id });
      const measured = rates(judge, 0);
      const expected = SIM_JUDGE_PRESETS[id].accuracy;
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

describe("sim-judge-correlated: systematic errors", () => {
  const correlated = createSimJudge({ id: "sim-judge-correlated" });
  const wrongInput = cases.filter((c) => c.reason === "wrong-input");
  const recoveries = cases.filter((c) => c.reason === "recovery");
  const others = cases.filter((c) => c.reason !== "wrong-input" && c.reason !== "recovery");
  const SEEDS = 20;

  /** Every verdict over `SEEDS` sampled seeds and the greedy one, per case. */
  function verdicts(judge: SimModel, judged: readonly JudgeCase[]) {
    return judged.flatMap(({ prompt }) => [
      ...Array.from({ length: SEEDS }, (_, seed) => parseVerdict(generate(judge, chat(prompt), seed, 1)).verdict),
      parseVerdict(generate(judge, chat(prompt), 0, 0)).verdict,
    ]);
  }

  it("has chunks of both systematic kinds to be judged on", () => {
    expect(wrongInput.length).toBeGreaterThan(100);
    expect(recoveries.length).toBeGreaterThan(30);
    expect(correlated.config).toMatchObject({ accuracy: 0.8, positiveBias: 0.05, unparseableRate: 0.02, blindTo: ["wrong-input"], suspiciousOf: ["recovery"] });
  });

  it("calls every wrong-input chunk Positive, on every seed and greedily", () => {
    const said = verdicts(correlated, wrongInput);
    expect(said).not.toContain("Negative");
    // Only the preset's unparseable answers (2 %) are not Positive.
    const unparseable = said.filter((v) => v === "unparseable").length / said.length;
    expect(Math.abs(unparseable - 0.02)).toBeLessThan(tolerance(0.02, said.length));
    const clean = createSimJudge({ id: "sim-judge-correlated", unparseableRate: 0 });
    expect(new Set(verdicts(clean, wrongInput))).toEqual(new Set(["Positive"]));
    // The same chunks, judged by the medium judge (same accuracy, no systematic errors), are mostly Negative.
    const medium = verdicts(createSimJudge({ id: "sim-judge-medium" }), wrongInput);
    expect(medium.filter((v) => v === "Negative").length / medium.length).toBeGreaterThan(0.7);
  });

  it("calls every right recheck Negative, on every seed and greedily", () => {
    const said = verdicts(correlated, recoveries);
    expect(said).not.toContain("Positive");
    const clean = createSimJudge({ id: "sim-judge-correlated", unparseableRate: 0 });
    expect(new Set(verdicts(clean, recoveries))).toEqual(new Set(["Negative"]));
    const medium = verdicts(createSimJudge({ id: "sim-judge-medium" }), recoveries);
    expect(medium.filter((v) => v === "Positive").length / medium.length).toBeGreaterThan(0.7);
  });

  it("votes cannot outvote it: the majority of 15 samples keeps the systematic verdict", () => {
    const majority = (judge: SimModel, prompt: string) => {
      const said = Array.from({ length: 15 }, (_, seed) => parseVerdict(generate(judge, chat(prompt), 1000 + seed, 1)).verdict);
      return said.filter((v) => v === "Positive").length > said.filter((v) => v === "Negative").length ? "Positive" : "Negative";
    };
    const medium = createSimJudge({ id: "sim-judge-medium" });
    expect(wrongInput.every(({ prompt }) => majority(correlated, prompt) === "Positive")).toBe(true);
    expect(recoveries.every(({ prompt }) => majority(correlated, prompt) === "Negative")).toBe(true);
    // Independent errors, by contrast, are voted away.
    expect(wrongInput.filter(({ prompt }) => majority(medium, prompt) === "Negative").length / wrongInput.length).toBeGreaterThan(0.95);
  });

  it("follows its accuracy and Positive bias on every other chunk", () => {
    const measured = rates(correlated, 1, others);
    const pp = probabilityOfPositive(correlated.config, "Positive");
    const pn = probabilityOfPositive(correlated.config, "Negative");
    expect(measured.counts.Negative.n).toBeGreaterThan(200);
    expect(Math.abs(measured.positiveGivenPositive - pp)).toBeLessThan(tolerance(pp, measured.counts.Positive.n));
    expect(Math.abs(measured.positiveGivenNegative - pn)).toBeLessThan(tolerance(pn, measured.counts.Negative.n));
    expect(Math.abs(measured.unparseable - 0.02)).toBeLessThan(tolerance(0.02, others.length));
    const greedy = rates(correlated, 0, others);
    expect(Math.abs(greedy.accuracy - 0.8)).toBeLessThan(0.06);
  });

  it("argues the verdict it gives: a rationale that reads the chunk against the history as written", () => {
    const clean = createSimJudge({ id: "sim-judge-correlated", unparseableRate: 0 });
    const carried = generate(clean, chat(judgePrompt(MIA_TEXT, ["She buys 5 more: 12 + 5 = 18."], "She gives away 3: 18 - 3 = 15.")));
    expect(carried).toContain("The chunk continues from 18, the running value as the reasoning so far has it, and 18 - 3 = 15 follows from it. The chunk is a valid step forward.");
    expect(carried).not.toContain("should be 17");
    expect(parseVerdict(carried).verdict).toBe("Positive");
    const recheck = "Wait, let me recheck: 12 + 5 = 17, not 18. So now 17 - 3 = 14.";
    const fixed = generate(clean, chat(judgePrompt(MIA_TEXT, ["She buys 5 more: 12 + 5 = 18."], recheck)));
    expect(fixed).toContain("The chunk goes back on 18, the value the earlier steps arrived at, and changes course; a chunk that contradicts the reasoning before it seems to contain a mistake.");
    expect(fixed).not.toContain("correctly fixes");
    expect(parseVerdict(fixed).verdict).toBe("Negative");
    // An unparseable answer still argues the systematic verdict.
    const sloppy = createSimJudge({ id: "sim-judge-correlated", unparseableRate: 1 });
    const unparsed = generate(sloppy, chat(judgePrompt(MIA_TEXT, ["She buys 5 more: 12 + 5 = 18."], recheck)), 3);
    expect(parseVerdict(unparsed).verdict).toBe("unparseable");
    expect(unparsed).toContain("seems to contain a mistake");
    // A chunk of no systematic kind gets the ordinary rationale.
    const exactButBlind = createSimJudge({ id: "exact", accuracy: 1, positiveBias: 0, unparseableRate: 0, blindTo: ["wrong-input"], suspiciousOf: ["recovery"] });
    const slip = generate(exactButBlind, chat(judgePrompt(MIA_TEXT, [], "She buys 5 more: 12 + 5 = 18.")));
    expect(slip).toContain("12 + 5 is 17, not 18");
    expect(parseVerdict(slip).verdict).toBe("Negative");
  });

  it("is blind or suspicious by setting: other kinds of mistake and of correct step", () => {
    const judge = createSimJudge({ id: "j", accuracy: 1, positiveBias: 0, unparseableRate: 0, blindTo: ["arithmetic-error", "wrong-operation"], suspiciousOf: ["multiplication"] });
    const say = (history: string[], chunk: string, seed = 0) => parseVerdict(generate(judge, chat(judgePrompt(MIA_TEXT, history, chunk)), seed)).verdict;
    for (let seed = 0; seed < 10; seed++) {
      expect(say([], "She buys 5 more: 12 + 5 = 18.", seed)).toBe("Positive"); // arithmetic-error
      expect(say([], "She buys 5 more: 12 × 5 = 60.", seed)).toBe("Positive"); // wrong-operation
      expect(say(MIA_RIGHT.slice(0, 2), MIA_RIGHT[2], seed)).toBe("Negative"); // a right doubling
      expect(say(MIA_RIGHT.slice(0, 1), MIA_RIGHT[1], seed)).toBe("Positive"); // a right subtraction
      expect(say(["She buys 5 more: 12 + 5 = 18."], "She gives away 3: 18 - 3 = 15.", seed)).toBe("Negative"); // wrong-input: not blind to it
    }
  });

  describe("on text that is not the world's (the arithmetic check's truth)", () => {
    const problem = "Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. How many are left?";
    const said = (judge: SimModel, chunk: string) =>
      Array.from({ length: 400 }, (_, seed) => parseVerdict(generate(judge, chat(judgePrompt(problem, ["Janet starts with 16 eggs."], chunk)), seed)).verdict);
    const share = (verdicts: string[], verdict: string) => verdicts.filter((v) => v === verdict).length / verdicts.filter((v) => v !== "unparseable").length;

    it("the preset follows the arithmetic at its accuracy (a running value it cannot see), and distrusts rechecks by their wording", () => {
      const right = said(correlated, "She has 16 - 3 - 4 = 9 eggs left.");
      const wrong = said(correlated, "She has 16 - 3 - 4 = 10 eggs left.");
      const pp = probabilityOfPositive(correlated.config, "Positive");
      const pn = probabilityOfPositive(correlated.config, "Negative");
      expect(Math.abs(share(right, "Positive") - pp)).toBeLessThan(tolerance(pp, 400));
      expect(Math.abs(share(wrong, "Positive") - pn)).toBeLessThan(tolerance(pn, 400));
      // A right recheck, by its wording: always Negative.
      expect(said(correlated, "Wait, let me recheck: 16 - 3 = 13, and 13 - 4 = 9. So 9 eggs are left.")).not.toContain("Positive");
      expect(said(correlated, "Hold on, I made a mistake: 16 - 3 = 13 eggs.")).not.toContain("Positive");
      const answer = generate(correlated, chat(judgePrompt(problem, [], "Wait, let me recheck: 16 - 3 = 13, and 13 - 4 = 9.")), 1);
      expect(answer).toContain("The chunk goes back on what the reasoning before it concluded");
      // A recheck whose arithmetic is wrong is a mistake, judged with ordinary noise (mostly Negative).
      expect(share(said(correlated, "Wait, let me recheck: 16 - 3 = 12 eggs."), "Negative")).toBeGreaterThan(0.6);
    });

    it("a judge blind to arithmetic errors passes a wrong equation always, and one suspicious of multiplication fails a right product always", () => {
      const blind = createSimJudge({ id: "blind", blindTo: ["arithmetic-error"], unparseableRate: 0 });
      const wrong = said(blind, "She has 16 - 3 - 4 = 10 eggs left.");
      expect(new Set(wrong)).toEqual(new Set(["Positive"]));
      const text = generate(blind, chat(judgePrompt(problem, [], "She has 16 - 3 - 4 = 10 eggs left.")));
      expect(text).toContain("The calculations look right to me");
      const wary = createSimJudge({ id: "wary", suspiciousOf: ["multiplication", "division"], unparseableRate: 0 });
      expect(new Set(said(wary, "She sells 9 eggs at $2 each: 9 × 2 = $18."))).toEqual(new Set(["Negative"]));
      expect(new Set(said(wary, "She bakes 2 muffins with each egg: 4 \\times 2 = 8 muffins."))).toEqual(new Set(["Negative"]));
      expect(new Set(said(wary, "She splits the 8 eggs left between 2 neighbours: 8 / 2 = 4 eggs each."))).toEqual(new Set(["Negative"]));
      // Neither kind: the arithmetic decides, at the judge's accuracy.
      const plain = said(wary, "She has 16 - 3 - 4 = 9 eggs left.");
      expect(Math.abs(share(plain, "Positive") - probabilityOfPositive(wary.config, "Positive"))).toBeLessThan(tolerance(0.81, 400));
    });
  });
});
