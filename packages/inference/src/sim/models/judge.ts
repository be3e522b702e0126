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
import { parseCriticPrompt, type CriticPromptSlots } from "./critic-prompt";
import { parseJudgePrompt, type JudgePromptSlots } from "./judge-prompt";
import type { ConfiguredSimModel } from "./kinds";
import { continueAnswer, judgeRng, promptParts } from "./prompt-text";

const rate = z.number().min(0).max(1);

/**
 * Mistakes a judge can be blind to: the world's reasons for a wrong chunk
 * (`truthOfSolution`). In text that is not the world's, only
 * "arithmetic-error" can be recognised (the arithmetic check finds a wrong
 * equation); the others never apply there.
 */
export const JUDGE_BLIND_KINDS = ["arithmetic-error", "wrong-operation", "wrong-input", "bad-recovery", "wrong-answer", "extra-chunk"] as const;
export type JudgeBlindKind = (typeof JUDGE_BLIND_KINDS)[number];

/**
 * Correct chunks a judge can distrust: "recovery", a right recheck that fixes
 * an earlier mistake (in other text: a chunk that opens with "Wait"/"Hold on"
 * or says it rechecks or corrects something); "multiplication" and
 * "division", a chunk with an equation that multiplies or divides.
 */
export const JUDGE_SUSPICIOUS_KINDS = ["recovery", "multiplication", "division"] as const;
export type JudgeSuspiciousKind = (typeof JUDGE_SUSPICIOUS_KINDS)[number];

const kindList = <Kinds extends readonly [string, ...string[]]>(kinds: Kinds) =>
  z
    .array(z.enum(kinds))
    .default([])
    .refine((list) => new Set(list).size === list.length, { message: "lists a kind twice" });

/**
 * How a simulated judge answers, given the truth T of the chunk:
 * - with probability `unparseableRate` it ends without a valid verdict;
 * - otherwise, for a chunk of a kind it is systematically wrong about
 *   (`blindTo`: a mistake it always calls Positive; `suspiciousOf`: a correct
 *   chunk it always calls Negative), that verdict, on every sample, vote and
 *   retry; for any other chunk its honest verdict is T with probability
 *   `accuracy`, the opposite otherwise, and then a Negative verdict is turned
 *   into Positive with probability `positiveBias` (the collapse toward
 *   Positive the paper reports for judges trained on unbalanced data).
 * So, among parseable answers on chunks of no listed kind:
 *   P(Positive | T = Positive) = accuracy + (1 − accuracy)·positiveBias
 *   P(Positive | T = Negative) = (1 − accuracy) + accuracy·positiveBias
 * and with positiveBias = 0 the share of right verdicts is `accuracy` on both classes.
 * The independent errors average out over samples and retries; the
 * systematic ones do not.
 */
export const simJudgeConfigSchema = z.strictObject({
  id: z.string().trim().min(1).default("sim-judge-medium"),
  accuracy: rate.default(0.8),
  positiveBias: rate.default(0.05),
  unparseableRate: rate.default(0.02),
  blindTo: kindList(JUDGE_BLIND_KINDS),
  suspiciousOf: kindList(JUDGE_SUSPICIOUS_KINDS),
});
export type SimJudgeConfig = z.output<typeof simJudgeConfigSchema>;
export type SimJudgeConfigInput = z.input<typeof simJudgeConfigSchema>;

interface SimJudgePreset {
  accuracy: number;
  positiveBias: number;
  unparseableRate: number;
  blindTo?: readonly JudgeBlindKind[];
  suspiciousOf?: readonly JudgeSuspiciousKind[];
}

/**
 * strong, medium, weak: independent errors only. correlated: medium's
 * independent noise, plus two systematic errors of a judge that reads each
 * chunk against the history as written: blind to "wrong-input" (a step that
 * correctly continues from an earlier wrong value is Positive to it) and
 * suspicious of "recovery" (a right recheck contradicts the history, so it
 * is Negative to it).
 */
export const SIM_JUDGE_PRESETS = {
  "sim-judge-strong": { accuracy: 0.95, positiveBias: 0, unparseableRate: 0.01 },
  "sim-judge-medium": { accuracy: 0.8, positiveBias: 0.05, unparseableRate: 0.02 },
  "sim-judge-weak": { accuracy: 0.65, positiveBias: 0.15, unparseableRate: 0.05 },
  "sim-judge-correlated": { accuracy: 0.8, positiveBias: 0.05, unparseableRate: 0.02, blindTo: ["wrong-input"], suspiciousOf: ["recovery"] },
} as const satisfies Record<string, SimJudgePreset>;
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
  | { source: "arithmetic"; check: ArithmeticCheck; opening: string; text: string };

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
  return { source: "arithmetic", check: checkArithmetic(slots.chunk), opening: openingOf(slots.chunk), text: slots.chunk };
}

export function evidenceLabel(evidence: JudgeEvidence): Label {
  const correct = evidence.source === "world" ? evidence.truth.correct : evidence.check.correct;
  return correct ? "Positive" : "Negative";
}

/**
 * A verdict the judge reaches for a chunk whatever the sample: Positive on a
 * mistake of a kind it is blind to, Negative on a correct chunk of a kind it
 * distrusts; null when its ordinary (independent) noise decides.
 */
export type SystematicVerdict = { verdict: "Positive"; kind: JudgeBlindKind } | { verdict: "Negative"; kind: JudgeSuspiciousKind };

/** A chunk that goes back on what came before: "Wait, …", "Hold on", "let me recheck", "I made a mistake". */
const RECHECK_CUE = /^\W*(?:wait|hold on)\b|\blet me (?:re-?check|re-?calculate|re-?compute|re-?examine|double-check|correct)\b|\bI made (?:a|an) (?:mistake|error)\b/i;
const MULTIPLIES = /[×*·]|\\times|\\cdot|\d\s*[xX]\s*\d/;
const DIVIDES = /[÷/]|\\div/;

/** The kinds of `JUDGE_SUSPICIOUS_KINDS` the chunk is, right or wrong. */
export function chunkKinds(evidence: JudgeEvidence): JudgeSuspiciousKind[] {
  let recovery: boolean;
  let multiplies: boolean;
  let divides: boolean;
  if (evidence.source === "world") {
    const chunk = evidence.truth.chunk;
    const equations = chunk.kind === "step" ? [chunk.equation] : chunk.kind === "recovery" ? [...chunk.rechecks, chunk.equation] : [];
    recovery = chunk.kind === "recovery";
    multiplies = equations.some((equation) => equation.symbol === "×");
    divides = equations.some((equation) => equation.symbol === "÷");
  } else {
    recovery = RECHECK_CUE.test(evidence.text);
    multiplies = evidence.check.equations.some((equation) => MULTIPLIES.test(equation.text));
    divides = evidence.check.equations.some((equation) => DIVIDES.test(equation.text));
  }
  return JUDGE_SUSPICIOUS_KINDS.filter((kind) => (kind === "recovery" ? recovery : kind === "multiplication" ? multiplies : divides));
}

/** The kind of mistake the chunk is (in other text only "arithmetic-error" is known), null for a correct chunk. */
export function mistakeKind(evidence: JudgeEvidence): JudgeBlindKind | null {
  if (evidence.source === "arithmetic") return evidence.check.correct ? null : "arithmetic-error";
  const { reason } = evidence.truth;
  return reason === "correct" || reason === "recovery" ? null : reason;
}

/**
 * The judge's systematic verdict on the chunk, a function of the chunk, its
 * problem and history alone: the same on every sample, vote and retry.
 */
export function systematicVerdict(config: Pick<SimJudgeConfig, "blindTo" | "suspiciousOf">, evidence: JudgeEvidence): SystematicVerdict | null {
  const mistake = mistakeKind(evidence);
  if (mistake !== null) return config.blindTo.includes(mistake) ? { verdict: "Positive", kind: mistake } : null;
  const distrusted = chunkKinds(evidence).find((kind) => config.suspiciousOf.includes(kind));
  return distrusted === undefined ? null : { verdict: "Negative", kind: distrusted };
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

/** The check of a judge whose systematic error gave its verdict: how it misreads this kind of chunk. */
function systematicCheckOf(evidence: JudgeEvidence, systematic: SystematicVerdict): string | null {
  if (evidence.source === "arithmetic") {
    return systematic.kind === "recovery" ? "The chunk goes back on what the reasoning before it concluded; a chunk that contradicts the earlier steps seems to contain a mistake." : null;
  }
  const { truth } = evidence;
  const chunk = truth.chunk;
  if (systematic.kind === "wrong-input" && chunk.kind !== "answer") {
    return `The chunk continues from ${chunk.equation.left}, the running value as the reasoning so far has it, and ${equationOf(chunk)} follows from it. The chunk is a valid step forward.`;
  }
  if (systematic.kind === "recovery" && chunk.kind === "recovery") {
    return `The chunk goes back on ${chunk.rejectedValue}, the value the earlier steps arrived at, and changes course; a chunk that contradicts the reasoning before it seems to contain a mistake.`;
  }
  return null;
}

/** The check, as a judge that reached `verdict` would write it. */
export function checkOf(evidence: JudgeEvidence, verdict: Label, systematic: SystematicVerdict | null = null): string {
  const truthLabel = evidenceLabel(evidence);
  const misread = systematic !== null && systematic.verdict === verdict ? systematicCheckOf(evidence, systematic) : null;
  if (misread !== null) return misread;
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

/** The whole answer; the rationale argues for `verdict` (or, unparseable, the `leaning`), in the words of `systematic` when it is that error. */
export function judgeAnswerText(evidence: JudgeEvidence, verdict: Label | "unparseable", leaning: Label, ending = 0, systematic: SystematicVerdict | null = null): string {
  const said = verdict === "unparseable" ? leaning : verdict;
  const quote = evidence.source === "arithmetic" ? ` The chunk reads: "${evidence.opening}".` : "";
  const analysis = `1. Analysis: The goal of this chunk is to ${goalOf(evidence)}.${quote} Checking: ${checkOf(evidence, said, systematic)}`;
  const final = verdict === "unparseable" ? UNPARSEABLE_ENDINGS[ending % UNPARSEABLE_ENDINGS.length]!(leaning) : `Final Judgment: \\boxed{${verdict}}`;
  return `${analysis}\n2. ${final}`;
}

/**
 * The judge's verdict for a chunk whose truth is `truth`: sampled with `rng`,
 * most probable when null. A `systematic` verdict replaces the honest one
 * (no accuracy, no Positive bias); the answer can still be unparseable.
 */
export function sampleJudgeVerdict(
  config: Pick<SimJudgeConfig, "accuracy" | "positiveBias" | "unparseableRate">,
  truth: Label,
  rng: Rng | null,
  systematic: Label | null = null,
): { verdict: Label | "unparseable"; leaning: Label; ending: number } {
  if (systematic !== null) {
    if (rng === null) return { verdict: config.unparseableRate > 1 - config.unparseableRate ? "unparseable" : systematic, leaning: systematic, ending: 0 };
    if (rng.nextFloat() < config.unparseableRate) return { verdict: "unparseable", leaning: systematic, ending: rng.nextInt(UNPARSEABLE_ENDINGS.length) };
    return { verdict: systematic, leaning: systematic, ending: 0 };
  }
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

/** Ways a critic ends without an index that either critic template's reading accepts (always in a last box, so no earlier text is read instead). */
const UNPARSEABLE_CRITIC_ENDINGS: ReadonlyArray<(index: number) => string> = [
  (index) => `The earliest error: \\boxed{${index === -1 ? "none" : `paragraph ${index}`}}`,
  (index) => `\\boxed{${index}.0}`,
  (index) => `\\boxed{${index === -1 ? "No error" : `Paragraph ${index}`}}`,
];

/**
 * A judge's answer to a ProcessBench critic prompt (either version): it judges the
 * paragraphs in order as chunks with their history, each verdict drawn as for a
 * judge prompt (accuracy, Positive bias, systematic errors) from one stream, and
 * stops at the first Negative, whose index it boxes, or boxes -1. With probability
 * `unparseableRate` the answer names no index that a critic reading accepts.
 */
export function criticAnswerText(config: Pick<SimJudgeConfig, "accuracy" | "positiveBias" | "unparseableRate" | "blindTo" | "suspiciousOf">, slots: CriticPromptSlots, rng: Rng): string {
  const unparseable = rng.nextFloat() < config.unparseableRate;
  const lines: string[] = [];
  let firstError = -1;
  for (let i = 0; i < slots.paragraphs.length; i++) {
    const evidence = judgeEvidence({ problem: slots.problem, history: slots.paragraphs.slice(0, i).map((p) => p.trim()), chunk: slots.paragraphs[i]! });
    const systematic = systematicVerdict(config, evidence);
    const { verdict } = sampleJudgeVerdict({ ...config, unparseableRate: 0 }, evidenceLabel(evidence), rng, systematic?.verdict ?? null);
    const said: Label = verdict === "Negative" ? "Negative" : "Positive";
    lines.push(`Paragraph ${i}: ${checkOf(evidence, said, systematic)}`);
    if (said === "Negative") {
      firstError = i;
      break;
    }
  }
  const conclusion = firstError === -1 ? "No paragraph contains an error." : `The earliest error is in paragraph ${firstError}.`;
  const ending = unparseable ? UNPARSEABLE_CRITIC_ENDINGS[rng.nextInt(UNPARSEABLE_CRITIC_ENDINGS.length)]!(firstError) : `${conclusion}\n\n\\boxed{${firstError}}`;
  return [...lines, "", ending].join("\n");
}

export function readJudgePrompt(request: SimSampleRequest, modelId: string): { slots: JudgePromptSlots; partial: string | null } {
  const parts = promptParts(request.prompt);
  const slots = parseJudgePrompt(parts.instruction);
  if (!slots) throw new SimPromptError(`${modelId} expects the StepWiser judge prompt (Mathematical Problem / Historical Reasoning Path / New Reasoning Chunk) or a ProcessBench critic prompt`);
  return { slots, partial: parts.partial };
}

/**
 * A simulated StepWiser judge: knows the truth of arithmetic-world chunks (the
 * arithmetic checker's verdict for other text) and answers it with the
 * configured accuracy, Positive bias and unparseable rate, except on the kinds
 * of chunk it is systematically wrong about (`blindTo`, `suspiciousOf`).
 */
export function createSimJudge(input: SimJudgeConfigInput = {}): ConfiguredSimModel<"judge", SimJudgeConfig> {
  const id = input.id ?? "sim-judge-medium";
  const parsed = simJudgeConfigSchema.parse({ ...(isSimJudgePresetId(id) ? SIM_JUDGE_PRESETS[id] : {}), ...input, id });
  Object.freeze(parsed.blindTo);
  Object.freeze(parsed.suspiciousOf);
  const config = Object.freeze(parsed);
  return {
    id: config.id,
    kind: "judge",
    config,
    generate(request) {
      const parts = promptParts(request.prompt);
      const critic = parseCriticPrompt(parts.instruction);
      if (critic) return continueAnswer(criticAnswerText(config, critic, judgeRng(config.id, request)), parts.partial, config.id);
      const { slots, partial } = readJudgePrompt(request, config.id);
      const evidence = judgeEvidence(slots);
      const systematic = systematicVerdict(config, evidence);
      const { verdict, leaning, ending } = sampleJudgeVerdict(config, evidenceLabel(evidence), judgeRng(config.id, request), systematic?.verdict ?? null);
      return continueAnswer(judgeAnswerText(evidence, verdict, leaning, ending, systematic), partial, config.id);
    },
  };
}
