import { MATH_SHEPHERD_STEP_TAG } from "../../imports/math-shepherd";
import type { ChatMessage } from "../../prompts/template";
import type { Verdict } from "../verdict";
import { DEFAULT_PRM_THRESHOLD_VALUE, PRM_VARIANT_IDS, type PrmVariantId } from "./registry";

/*
 * Discriminative process reward models served by vLLM's pooling API (`POST /pooling` at the
 * server root, the model started with `--runner pooling`, older vLLM `--task reward`): the
 * step pooler returns one probability pair per step-separator token.
 */

export { PRM_VARIANT_IDS, type PrmVariantId };
export const DEFAULT_PRM_VARIANT: PrmVariantId = PRM_VARIANT_IDS[0];
/** A step is Positive when its positive-class probability is at least this. */
export const DEFAULT_PRM_THRESHOLD = DEFAULT_PRM_THRESHOLD_VALUE;

/** Qwen2.5-Math-PRM's system prompt and step separator (its model card's usage example). */
export const QWEN_PRM_SYSTEM_PROMPT = "Please reason step by step, and put your final answer within \\boxed{}.";
export const QWEN_PRM_STEP_SEPARATOR = "<extra_0>";

/** Which entry of a step's probability pair is the probability that the step is correct. */
export const PRM_POSITIVE_INDEX: Readonly<Record<PrmVariantId, number>> = Object.freeze({
  "qwen2.5-math-prm": 1,
  "math-shepherd": 0,
});

export type PoolingInput = { messages: ChatMessage[] } | { input: string };

/** The body of the pooling request, without `model`. */
export function buildPoolingInput(variant: PrmVariantId, solution: { problem: string; steps: readonly string[] }): PoolingInput {
  const { problem, steps } = solution;
  if (variant === "qwen2.5-math-prm") {
    return {
      messages: [
        { role: "system", content: QWEN_PRM_SYSTEM_PROMPT },
        { role: "user", content: problem },
        { role: "assistant", content: steps.join(QWEN_PRM_STEP_SEPARATOR) + QWEN_PRM_STEP_SEPARATOR },
      ],
    };
  }
  // Math-Shepherd tags the end of every step (the tag of its data set); the pooler returns P("+") and P("-") there.
  return { input: `${problem} ${steps.map((step, index) => `Step ${index + 1}: ${step} ${MATH_SHEPHERD_STEP_TAG}`).join("\n")}` };
}

export type PoolingProblem = "not-a-pooling-response" | "wrong-step-count" | "not-probabilities";

/**
 * The positive-class probability of each step from a pooling response body. A body that is
 * not a pooling response, a count of pairs other than the step count, or a value that is not
 * a probability makes every step unparseable.
 */
export function readStepProbabilities(
  variant: PrmVariantId,
  data: unknown,
  stepCount: number,
): { scores: number[] } | { problem: PoolingProblem; detail: string } {
  const rows = poolingRows(data);
  if (!rows) return { problem: "not-a-pooling-response", detail: 'expected {"data": [{"data": [[p0, p1], …]}]}' };
  if (rows.length !== stepCount) {
    return { problem: "wrong-step-count", detail: `${rows.length} probability pairs for ${stepCount} steps` };
  }
  const positive = PRM_POSITIVE_INDEX[variant];
  const scores: number[] = [];
  for (const [index, row] of rows.entries()) {
    if (!Array.isArray(row) || row.length !== 2 || !row.every(isProbability)) {
      return { problem: "not-probabilities", detail: `step ${index + 1}: ${JSON.stringify(row)} is not a pair of probabilities` };
    }
    scores.push(row[positive] as number);
  }
  return { scores };
}

function poolingRows(data: unknown): unknown[] | null {
  if (!isRecord(data) || !Array.isArray(data.data) || data.data.length !== 1) return null;
  const first: unknown = data.data[0];
  if (!isRecord(first) || !Array.isArray(first.data)) return null;
  return first.data as unknown[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isProbability(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1;
}

/** Positive iff the step's score is at least the threshold. */
export function stepVerdicts(scores: readonly number[], threshold: number = DEFAULT_PRM_THRESHOLD): Verdict[] {
  return scores.map((score) => (score >= threshold ? "Positive" : "Negative"));
}

/** 0-based index of the first Negative, -1 when there is none. */
export function firstNegativeStep(verdicts: readonly Verdict[]): number {
  return verdicts.indexOf("Negative");
}
