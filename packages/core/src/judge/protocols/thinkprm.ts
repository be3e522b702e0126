import type { ChatMessage } from "../../prompts/template";
import type { Verdict } from "../verdict";
import type { TokenLogprob } from "./logprobs";

/**
 * ThinkPRM's verifier prompt, word for word: `format_verification_cot_for_thinkprm` in
 * `utils/helper.py` of github.com/mukhal/ThinkPRM (commit 0beccfb), the triple-quoted
 * `instruction_template` after `.strip()` with its default `_instruction` (the one the
 * released models were trained with) already in place. The helper fills `{problem}` and then
 * `{solution}` by plain `str.replace`, which `buildThinkPrmUserMessage` does too.
 */
export const THINKPRM_INSTRUCTION_TEMPLATE = [
  "You are given a math problem and a proposed step-by-step solution:",
  "",
  "[Math Problem]",
  "",
  "{problem}",
  "",
  "[Solution]",
  "",
  "{solution}",
  "",
  "Review and critique each step in the proposed solution to determine whether each step is correct. If the solution is incomplete, only verify the provided steps.",
].join("\n");

/**
 * The start of the verifier's answer, continued by the model: `utils/helper.py`'s inference
 * branch appends `"\nLet's verify step by step:"` to the chat template's generation prompt,
 * so the assistant's text begins with a newline.
 */
export const THINKPRM_VERIFICATION_PREFIX = "\nLet's verify step by step:";

/** Written after the verification to ask for the decision (`predecision_string` of `prm/thinkprm_api.py`). */
export const THINKPRM_PREDECISION_STRING = "\nIs the solution correct? ";

/** The verification stops here (`stop_patterns` of `prm/thinkprm_api.py`, without the tokenizer's EOS, which servers apply themselves). */
export const THINKPRM_STOP_STRINGS = Object.freeze(["Is the solution correct?", "</think>"] as const);

/** The decision labels, the positive one first (`label_categories="yes,no"`, `score_label_idx=0`). */
export const THINKPRM_DECISION_LABELS = Object.freeze({ positive: "yes", negative: "no" } as const);
export interface DecisionLabels {
  positive: string;
  negative: string;
}

/** The decision request generates one token at temperature 0 and reads its top log-probabilities. */
export const THINKPRM_DECISION_REQUEST = Object.freeze({ maxTokens: 1, temperature: 0, topLogprobs: 20 } as const);

const LEADING_STEP_LABEL = /^\s*Step \d+:/;

/**
 * The solution as ThinkPRM's process verifier reads it: each step loses a leading
 * `Step N:` and surrounding whitespace, then is numbered `Step i: ` from 1; steps joined by "\n".
 */
export function formatThinkPrmSolution(steps: readonly string[]): string {
  return steps.map((step, index) => `Step ${index + 1}: ${step.replace(LEADING_STEP_LABEL, "").trim()}`).join("\n");
}

/** The user message: the template filled by plain replacement, `{problem}` first, as the source does. */
export function buildThinkPrmUserMessage(problem: string, steps: readonly string[]): string {
  const solution = formatThinkPrmSolution(steps);
  return THINKPRM_INSTRUCTION_TEMPLATE.split("{problem}").join(problem).split("{solution}").join(solution);
}

export interface ThinkPrmRequest {
  /** The user message and the assistant message the server continues (`continue_final_message`). */
  messages: ChatMessage[];
  stop: string[];
}

/**
 * Request 1, the verification: the user message plus the assistant's "Let's verify step by step:"
 * to continue. Besides ThinkPRM's stop strings it stops at `Step {n+1}:`, so the verifier never
 * goes on to steps that do not exist (the source's process-verifier rule).
 */
export function buildThinkPrmMessages(input: { problem: string; steps: readonly string[] }): ThinkPrmRequest {
  return {
    messages: [
      { role: "user", content: buildThinkPrmUserMessage(input.problem, input.steps) },
      { role: "assistant", content: THINKPRM_VERIFICATION_PREFIX },
    ],
    stop: [...THINKPRM_STOP_STRINGS, `Step ${input.steps.length + 1}:`],
  };
}

/**
 * Request 2, the decision: the same conversation, the assistant message now holding the
 * verification and the predecision question, to be continued by one token.
 */
export function buildThinkPrmDecisionMessages(request1Messages: readonly ChatMessage[], verification: string): ChatMessage[] {
  const last = request1Messages.at(-1);
  if (!last || last.role !== "assistant") throw new Error("the verification request must end with the assistant message to continue");
  return [...request1Messages.slice(0, -1), { role: "assistant", content: last.content + verification + THINKPRM_PREDECISION_STRING }];
}

export type ThinkPrmProblem = "no-steps" | "no-decision" | "decisions-run-out" | "more-decisions-than-steps";

export interface ThinkPrmVerification {
  /**
   * One verdict per step the chain judged, in order. The chain usually stops at its first
   * incorrect step, so steps after a Negative have none. When the whole reading fails
   * (`problem` set) this holds the decisions that were read, except with more decisions than
   * steps, where no decision can be tied to a step and every step is unparseable.
   */
  verdicts: Verdict[];
  /** The chain's text for each judged step: from the end of the previous decision (or the start) to the end of its own. */
  rationales: string[];
  /** 0-based index of the first Negative step, -1 when every step is Positive, null when unparseable. */
  predictedFirstError: number | null;
  problem?: ThinkPrmProblem;
}

// `\boxed{correct}` / `\boxed{incorrect}`, and the same with `\text{…}` inside, which the
// source rewrites to the plain form before reading the boxes (dataset/prm_dataset.py).
const STEP_DECISION = /\\boxed\{(?:(correct|incorrect)|\\text\{(correct|incorrect)\})\}/g;

/** Reads the step decisions of a ThinkPRM verification chain (the text generated after the prefix). */
export function parseThinkPrmVerification(text: string, stepCount: number): ThinkPrmVerification {
  if (stepCount < 1) return { verdicts: [], rationales: [], predictedFirstError: null, problem: "no-steps" };
  const verdicts: Verdict[] = [];
  const rationales: string[] = [];
  let from = 0;
  for (const match of text.matchAll(STEP_DECISION)) {
    const end = match.index + match[0].length;
    verdicts.push((match[1] ?? match[2]) === "correct" ? "Positive" : "Negative");
    rationales.push(text.slice(from, end));
    from = end;
  }
  if (verdicts.length === 0) return { verdicts: [], rationales: [], predictedFirstError: null, problem: "no-decision" };
  if (verdicts.length > stepCount) {
    return {
      verdicts: Array.from({ length: stepCount }, () => "unparseable" as const),
      rationales: [],
      predictedFirstError: null,
      problem: "more-decisions-than-steps",
    };
  }
  const firstNegative = verdicts.indexOf("Negative");
  if (firstNegative >= 0) {
    return { verdicts: verdicts.slice(0, firstNegative + 1), rationales: rationales.slice(0, firstNegative + 1), predictedFirstError: firstNegative };
  }
  if (verdicts.length === stepCount) return { verdicts, rationales, predictedFirstError: -1 };
  return { verdicts, rationales, predictedFirstError: null, problem: "decisions-run-out" };
}

/** The highest log-probability the server reported for a token whose trimmed text is `label` (case-sensitive). */
export function labelLogprob(token: TokenLogprob, label: string): number | null {
  let best: number | null = null;
  const consider = (text: string, logprob: number) => {
    if (text.trim() !== label || !Number.isFinite(logprob)) return;
    if (best === null || logprob > best) best = logprob;
  };
  consider(token.token, token.logprob);
  for (const alternative of token.top) consider(alternative.token, alternative.logprob);
  return best;
}

/** e^a / (e^a + e^b), computed without overflow. */
export function twoWaySoftmax(a: number, b: number): number {
  return 1 / (1 + Math.exp(b - a));
}

/**
 * The solution score P(yes) from the decision token's top log-probabilities:
 * e^yes / (e^yes + e^no). A label missing from the list counts as probability 0;
 * with neither label (or no token) there is no score.
 */
export function thinkPrmDecisionScore(token: TokenLogprob | undefined, labels: DecisionLabels = THINKPRM_DECISION_LABELS): number | null {
  if (!token) return null;
  const yes = labelLogprob(token, labels.positive);
  const no = labelLogprob(token, labels.negative);
  if (yes === null && no === null) return null;
  if (yes === null) return 0;
  if (no === null) return 1;
  return twoWaySoftmax(yes, no);
}
