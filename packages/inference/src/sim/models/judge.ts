import type { Label, Rng } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError, type SimSampleRequest } from "../model";
import {
  evaluateEquationLeft,
  formatEquation,
  operationClause,
  parseWorldChunk,
  truthOfSolution,
  tryParseProblem,
  type ArithProblem,
  type ChunkTruth,
  type WorldChunk,
} from "../world";
import { capitalize } from "../world/text";
import { checkArithmetic, describeArithmeticCheck, type ArithmeticCheck } from "./arithmetic";
import { parseJudgePrompt, type JudgePromptSlots } from "./judge-prompt";
import type { ConfiguredSimModel } from "./kinds";
import { continueAnswer, judgeRng, promptParts } from "./prompt-text";

const rate = z.number().min(0).max(1);

/**
 * How a simulated judge answers, given the truth T of the chunk:
 * - with probability `unparseableRate` it ends without a valid verdict;
 * - otherwise its honest verdict is T with probability `accuracy`, the
 *   opposite otherwise; then a Negative verdict is turned into Positive with
 *   probability `positiveBias` (the collapse toward Positive the paper reports
 *   for judges trained on unbalanced data).
 * So, among parseable answers:
 *   P(Positive | T = Positive) = accuracy + (1 − accuracy)·positiveBias
 *   P(Positive | T = Negative) = (1 − accuracy) + accuracy·positiveBias
 * and with positiveBias = 0 the share of right verdicts is `accuracy` on both classes.
 */
export const simJudgeConfigSchema = z.strictObject({
  id: z.string().trim().min(1).default("sim-judge-medium"),
  accuracy: rate.default(0.8),
  positiveBias: rate.default(0.05),
  unparseableRate: rate.default(0.02),
});
export type SimJudgeConfig = z.output<typeof simJudgeConfigSchema>;
export type SimJudgeConfigInput = z.input<typeof simJudgeConfigSchema>;

export const SIM_JUDGE_PRESETS = {
  "sim-judge-strong": { accuracy: 0.95, positiveBias: 0, unparseableRate: 0.01 },
  "sim-judge-medium": { accuracy: 0.8, positiveBias: 0.05, unparseableRate: 0.02 },
  "sim-judge-weak": { accuracy: 0.65, positiveBias: 0.15, unparseableRate: 0.05 },
} as const satisfies Record<string, Omit<SimJudgeConfig, "id">>;
export type SimJudgePresetId = keyof typeof SIM_JUDGE_PRESETS;

export function isSimJudgePresetId(id: string): id is SimJudgePresetId {
  return Object.hasOwn(SIM_JUDGE_PRESETS, id);
}

/** P(Positive | truth) among parseable answers; see `simJudgeConfigSchema`. */
export function probabilityOfPositive(config: Pick<SimJudgeConfig, "accuracy" | "positiveBias">, truth: Label): number {
  const { accuracy: a, positiveBias: b } = config;
  return truth === "Positive" ? a + (1 - a) * b : 1 - a + a * b;
}

/** What the judge knows about the chunk: the world's reading of it, or (for foreign text) the arithmetic check. */
export type JudgeEvidence =
  | { source: "world"; problem: ArithProblem; truth: ChunkTruth }
  | { source: "arithmetic"; check: ArithmeticCheck; opening: string };

const QUOTED_WORDS = 12;

/** The chunk's first words, as a judge restates what it is looking at (model output quotes its input verbatim). */
function openingOf(chunk: string): string {
  const words = chunk.trim().split(/\s+/);
  return words.slice(0, QUOTED_WORDS).join(" ") + (words.length > QUOTED_WORDS ? " …" : "");
}

/**
 * The true label of the judged chunk: the world's truth given the history
 * when problem, history and chunk are all this world's text; otherwise the
 * arithmetic checker's verdict on the chunk.
 */
export function judgeEvidence(slots: JudgePromptSlots): JudgeEvidence {
  const problem = tryParseProblem(slots.problem.trim());
  const chunks = [...slots.history, slots.chunk];
  if (problem && chunks.every((chunk) => parseWorldChunk(chunk) !== null)) {
    const truth = truthOfSolution(problem, chunks).chunks.at(-1)!;
    return { source: "world", problem, truth };
  }
  return { source: "arithmetic", check: checkArithmetic(slots.chunk), opening: openingOf(slots.chunk) };
}

export function evidenceLabel(evidence: JudgeEvidence): Label {
  const correct = evidence.source === "world" ? evidence.truth.correct : evidence.check.correct;
  return correct ? "Positive" : "Negative";
}

function goalOf(evidence: JudgeEvidence): string {
  if (evidence.source === "arithmetic") {
    return evidence.check.equations.length > 0 ? "carry out the calculations it states" : "set up the next part of the reasoning";
  }
  const chunk = evidence.truth.chunk;
  switch (chunk.kind) {
    case "step":
      return `work out what happens when ${chunk.subject.toLowerCase()} ${chunk.clause}`;
    case "recovery":
      return "recheck the earlier steps and continue from the corrected running value";
    case "answer":
      return "state the final answer";
  }
}

function equationOf(chunk: WorldChunk): string {
  return chunk.kind === "answer" ? `the answer ${chunk.value}` : formatEquation(chunk.equation);
}

/** The check, as a judge that reached `verdict` would write it. */
function checkOf(evidence: JudgeEvidence, verdict: Label): string {
  const truthLabel = evidenceLabel(evidence);
  if (evidence.source === "arithmetic") {
    if (verdict === truthLabel) {
      return `${describeArithmeticCheck(evidence.check)} ${verdict === "Positive" ? "The chunk is a valid step forward." : "The chunk contains a calculation error."}`;
    }
    return verdict === "Positive" ? "The calculations look right to me, and the chunk is a valid step forward." : "Something in this chunk does not add up; it seems to contain a mistake.";
  }
  const { problem, truth } = evidence;
  const chunk = truth.chunk;
  if (verdict !== truthLabel) {
    return verdict === "Positive"
      ? `${capitalize(equationOf(chunk))} follows from the reasoning so far, so the chunk looks like a valid step forward.`
      : `I am not convinced that ${equationOf(chunk)} is right at this point; the chunk seems to contain a mistake.`;
  }
  const operation = problem.operations[truth.stepIndex];
  const clause = operation ? `${problem.pronoun} ${operationClause(operation, problem.pronoun)}` : "";
  switch (truth.reason) {
    case "correct":
      return chunk.kind === "answer"
        ? `After the last step the running value is ${truth.trueBefore}, and the chunk gives ${chunk.value} as the answer. The answer follows from the calculations.`
        : `The running value before this step is ${truth.trueBefore}; the problem says ${clause}, and ${equationOf(chunk)} is right. The chunk is a valid step forward.`;
    case "recovery":
      return `The recheck is right: the running value should be ${truth.trueBefore}, not what was written before. Then ${equationOf(chunk)} is right. The chunk correctly fixes the earlier mistake.`;
    case "arithmetic-error": {
      if (chunk.kind === "answer") return "The chunk contains a calculation error.";
      const { left, symbol, right, result } = chunk.equation;
      const value = evaluateEquationLeft(chunk.equation);
      return `${left} ${symbol} ${right} is ${value ?? "not a whole number"}, not ${result}. The chunk contains a calculation error.`;
    }
    case "wrong-operation":
      return `The problem says ${clause}, but the chunk computes ${equationOf(chunk)}, which is not that operation. The chunk applies the wrong operation.`;
    case "wrong-input":
      return `The chunk starts from ${truth.writtenBefore}, but the running value at this point should be ${truth.trueBefore}. The chunk builds on an earlier mistake.`;
    case "bad-recovery":
      return `The recheck does not arrive at the right running value, ${truth.trueBefore}, or its own arithmetic is wrong. The chunk does not fix the mistake.`;
    case "wrong-answer":
      return `Following the problem step by step, the final value is ${problem.answer}, but the chunk gives ${chunk.kind === "answer" ? chunk.value : "a different value"}. The answer is wrong.`;
    case "extra-chunk":
      return "All the operations of the problem were already done (or the answer was already given), so this chunk does not belong here.";
  }
}

/** Ways a judge ends without a verdict that `parseVerdict` accepts. */
const UNPARSEABLE_ENDINGS: ReadonlyArray<(leaning: Label) => string> = [
  () => "Final Judgment: \\boxed{Looks fine}",
  (leaning) => `Final Judgment: ${leaning}`,
  (leaning) => `Final Judgment: \\boxed{${leaning === "Positive" ? "Correct" : "Incorrect"}}`,
  () => "Final Judgment: \\boxed{Positive or Negative}",
  (leaning) => `Final Judgment: the chunk is ${leaning === "Positive" ? "fine" : "wrong"}.`,
];

export function judgeAnswerText(evidence: JudgeEvidence, verdict: Label | "unparseable", leaning: Label, ending = 0): string {
  const said = verdict === "unparseable" ? leaning : verdict;
  const quote = evidence.source === "arithmetic" ? ` The chunk reads: "${evidence.opening}".` : "";
  const analysis = `1. Analysis: The goal of this chunk is to ${goalOf(evidence)}.${quote} Checking: ${checkOf(evidence, said)}`;
  const final = verdict === "unparseable" ? UNPARSEABLE_ENDINGS[ending % UNPARSEABLE_ENDINGS.length]!(leaning) : `Final Judgment: \\boxed{${verdict}}`;
  return `${analysis}\n2. ${final}`;
}

/** The judge's verdict for a chunk whose truth is `truth`: sampled with `rng`, most probable when null. */
export function sampleJudgeVerdict(config: Omit<SimJudgeConfig, "id">, truth: Label, rng: Rng | null): { verdict: Label | "unparseable"; leaning: Label; ending: number } {
  const opposite: Label = truth === "Positive" ? "Negative" : "Positive";
  if (rng === null) {
    const positive = probabilityOfPositive(config, truth);
    const pTruth = (1 - config.unparseableRate) * (truth === "Positive" ? positive : 1 - positive);
    const pOpposite = (1 - config.unparseableRate) - pTruth;
    const leaning = pTruth >= pOpposite ? truth : opposite;
    return { verdict: config.unparseableRate > Math.max(pTruth, pOpposite) ? "unparseable" : leaning, leaning, ending: 0 };
  }
  const unparseable = rng.nextFloat() < config.unparseableRate;
  let verdict: Label = rng.nextFloat() < config.accuracy ? truth : opposite;
  if (verdict === "Negative" && rng.nextFloat() < config.positiveBias) verdict = "Positive";
  if (unparseable) return { verdict: "unparseable", leaning: verdict, ending: rng.nextInt(UNPARSEABLE_ENDINGS.length) };
  return { verdict, leaning: verdict, ending: 0 };
}

export function readJudgePrompt(request: SimSampleRequest, modelId: string): { slots: JudgePromptSlots; partial: string | null } {
  const parts = promptParts(request.prompt);
  const slots = parseJudgePrompt(parts.instruction);
  if (!slots) throw new SimPromptError(`${modelId} expects the StepWiser judge prompt (Mathematical Problem / Historical Reasoning Path / New Reasoning Chunk)`);
  return { slots, partial: parts.partial };
}

/**
 * A simulated StepWiser judge: knows the truth of arithmetic-world chunks (the
 * arithmetic checker's verdict for other text) and answers it with the
 * configured accuracy, Positive bias and unparseable rate.
 */
export function createSimJudge(input: SimJudgeConfigInput = {}): ConfiguredSimModel<"judge", SimJudgeConfig> {
  const id = input.id ?? "sim-judge-medium";
  const config = Object.freeze(simJudgeConfigSchema.parse({ ...(isSimJudgePresetId(id) ? SIM_JUDGE_PRESETS[id] : {}), ...input, id }));
  return {
    id: config.id,
    kind: "judge",
    config,
    generate(request) {
      const { slots, partial } = readJudgePrompt(request, config.id);
      const evidence = judgeEvidence(slots);
      const { verdict, leaning, ending } = sampleJudgeVerdict(config, evidenceLabel(evidence), judgeRng(config.id, request));
      return continueAnswer(judgeAnswerText(evidence, verdict, leaning, ending), partial, config.id);
    },
  };
}
