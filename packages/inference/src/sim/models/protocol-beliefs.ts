import type { Label, Rng } from "@stepwiser/core";
import { z } from "zod";
import type { SimTopLogprob } from "../model";
import { parseWorldChunk, truthOfSolution, tryParseProblem, type ArithProblem } from "../world";
import { checkArithmetic } from "./arithmetic";
import { evidenceLabel, judgeEvidence, sampleJudgeVerdict, type JudgeEvidence } from "./judge";

const rate = z.number().min(0).max(1);

/**
 * The settings every protocol model shares with the simulated judge: its
 * verdict on a step (or a solution) is the truth with probability `accuracy`,
 * a Negative one then turns Positive with probability `positiveBias`, and with
 * probability `unparseableRate` the answer cannot be read.
 */
export const protocolModelFields = {
  accuracy: rate.default(0.85),
  positiveBias: rate.default(0),
  unparseableRate: rate.default(0.01),
};

export interface BeliefConfig {
  accuracy: number;
  positiveBias: number;
}

/** One step as a protocol model sees it: what it knows (the world's truth or the arithmetic check) and the verdict it reaches. */
export interface StepBelief {
  evidence: JudgeEvidence;
  truth: Label;
  said: Label;
}

/**
 * The model's verdicts on the steps in order, each the truth with the
 * configured accuracy (one random stream), as the simulated judge reaches
 * them; with `stopAtFirstNegative` the steps after the first Negative are not judged.
 */
export function believeSteps(config: BeliefConfig, problem: string, steps: readonly string[], rng: Rng, stopAtFirstNegative: boolean): StepBelief[] {
  const beliefs: StepBelief[] = [];
  for (let i = 0; i < steps.length; i++) {
    const belief = believeStep(config, problem, steps.slice(0, i), steps[i]!, rng);
    beliefs.push(belief);
    if (stopAtFirstNegative && belief.said === "Negative") break;
  }
  return beliefs;
}

export function believeStep(config: BeliefConfig, problem: string, history: readonly string[], step: string, rng: Rng): StepBelief {
  const evidence = judgeEvidence({ problem, history: history.map((h) => h.trim()), chunk: step.trim() });
  const truth = evidenceLabel(evidence);
  const { verdict } = sampleJudgeVerdict({ ...config, unparseableRate: 0 }, truth, rng);
  return { evidence, truth, said: verdict === "Negative" ? "Negative" : "Positive" };
}

/** The model's verdict on a whole solution whose truth is `truth`. */
export function believeLabel(config: BeliefConfig, truth: Label, rng: Rng): Label {
  const { verdict } = sampleJudgeVerdict({ ...config, unparseableRate: 0 }, truth, rng);
  return verdict === "Negative" ? "Negative" : "Positive";
}

/** A world problem stated in the text: a whole line, or a line after a short label ("Problem: …"); null if none. */
export function findWorldProblem(text: string): ArithProblem | null {
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    const problem = tryParseProblem(trimmed) ?? tryParseProblem(trimmed.replace(/^[^:]{1,40}:\s*/, ""));
    if (problem) return problem;
  }
  return null;
}

const EQ = String.raw`-?\d+ [+×÷-] \d+ = -?\d+`;
const CHUNK_CANDIDATE = new RegExp(String.raw`\b(?:She|He) [^:\n]+: ${EQ}\.|Wait, let me recheck: [^\n]*?So now ${EQ}\.|So the answer is \\boxed\{-?\d+\}\.`, "g");

/** The world's chunks written in a solution text, in order, whatever surrounds them (step labels, tags, line breaks). */
export function worldChunksIn(text: string): string[] {
  return [...text.matchAll(CHUNK_CANDIDATE)].map((match) => match[0]).filter((chunk) => parseWorldChunk(chunk) !== null);
}

/** A solution's outcome truth: the world's (its final answer is right) when the problem is this world's, else no equation of it is wrong. */
export function solutionOutcome(problem: ArithProblem | null, solution: string): { label: Label; finalAnswer: number | null; source: "world" | "arithmetic" } {
  const chunks = worldChunksIn(solution);
  if (problem && chunks.length > 0) {
    const truth = truthOfSolution(problem, chunks);
    return { label: truth.finalAnswerCorrect ? "Positive" : "Negative", finalAnswer: truth.finalAnswer, source: "world" };
  }
  return { label: checkArithmetic(solution).correct ? "Positive" : "Negative", finalAnswer: null, source: "arithmetic" };
}

/** How sure the model is of its verdict: near its accuracy, fixed by the stream (between 0.55 and 0.995). */
export function confidenceOf(config: BeliefConfig, rng: Rng): number {
  return Math.min(0.995, Math.max(0.55, config.accuracy + (rng.nextFloat() - 0.5) * 0.1));
}

/**
 * The alternatives at a binary decision token: `positive` with probability
 * 0.97·p, `negative` with 0.97·(1 − p), and two look-alikes sharing the rest.
 */
export function decisionTop(positive: string, negative: string, p: number, lookalikes: readonly [string, string]): SimTopLogprob[] {
  const floor = 1e-6;
  return [
    { token: positive, logprob: Math.log(Math.max(floor, 0.97 * p)) },
    { token: negative, logprob: Math.log(Math.max(floor, 0.97 * (1 - p))) },
    { token: lookalikes[0], logprob: Math.log(0.02) },
    { token: lookalikes[1], logprob: Math.log(0.01) },
  ];
}
