import type { ChatMessage } from "../../prompts/template";
import type { Verdict } from "../verdict";
import type { TokenLogprob } from "./logprobs";
import { twoWaySoftmax } from "./thinkprm";

/*
 * GenPRM's conversation and templates, word for word, from github.com/RyanLiu112/GenPRM
 * (commit cc80f47): the system prompt of the analyze/verify mode and the per-step
 * conversation are in `src/prm_evaluation/prm_evaluate.py`; the three stage templates,
 * the stop strings, the code-execution loop and the reward rule in
 * `src/prm_evaluation/genprm_inference.py`.
 */

/** The system message of GenPRM's analyze/verify mode. */
export const GENPRM_SYSTEM_PROMPT = "You are a math teacher. Your task is to review and critique the paragraphs in solution step by step.";

/** `analyze_template`, `{cur_step}` the 1-based step number. */
export const GENPRM_ANALYZE_TEMPLATE = "<analyze>\nLet's analyze the Paragraph {cur_step} step by step: ";
export const GENPRM_VERIFY_START = "<verify>\nLet's use python code to find any potential error:\n```python\n";
export const GENPRM_OUTPUT_START = "<output>\n**Judgement**: $\\boxed";

export const GENPRM_ANALYZE_END = "</analyze>\n";
export const GENPRM_OUTPUT_END = "</output>\n";
/** Where a code block ends; with execution on, request B pauses here so the block can run. */
export const GENPRM_CODE_FENCE_END = "\n```\n";

/** Code rounds per step before falling back to the analysis alone (`time_limit=3`). */
export const GENPRM_MAX_CODE_ROUNDS = 3;
/** The fallback request's budget (`left_tokens = 20`). */
export const GENPRM_FALLBACK_MAX_TOKENS = 20;
/** What GenPRM's executor reports when the text holds no python block. */
export const GENPRM_NO_CODE_OUTPUT = "Code format error: No code found.";

export function genPrmAnalyzeStart(stepNumber: number): string {
  return GENPRM_ANALYZE_TEMPLATE.replace("{cur_step}", String(stepNumber));
}

/**
 * The conversation that judges the step at `position` (0-based): the system prompt, then for
 * every step up to it a user message with the step (the first one prefixed by the problem and
 * "\n"), each earlier step followed by the assistant's judgement of it (`previousOutputs`, the
 * full step outputs from `<analyze>` to `</output>\n`). Ends with the user message of the step.
 */
export function buildGenPrmMessages(input: {
  problem: string;
  steps: readonly string[];
  position: number;
  previousOutputs: readonly string[];
}): ChatMessage[] {
  const { problem, steps, position, previousOutputs } = input;
  if (!Number.isInteger(position) || position < 0 || position >= steps.length) {
    throw new RangeError(`position ${position} is not a step of this solution (it has ${steps.length})`);
  }
  if (previousOutputs.length !== position) {
    throw new RangeError(`step ${position + 1} needs the outputs of the ${position} steps before it, got ${previousOutputs.length}`);
  }
  const messages: ChatMessage[] = [{ role: "system", content: GENPRM_SYSTEM_PROMPT }];
  for (let index = 0; index <= position; index += 1) {
    messages.push({ role: "user", content: index === 0 ? `${problem}\n${steps[0]}` : steps[index]! });
    if (index < position) messages.push({ role: "assistant", content: previousOutputs[index]! });
  }
  return messages;
}

/** One continuation request: the assistant message the server continues, and where it stops. */
export interface GenPrmContinuation {
  prefix: string;
  stop: string[];
  /** Set when the request has a budget of its own (the fallback); otherwise GenPRM's maximum. */
  maxTokens?: number;
}

/** Request A: the analysis, continuing the analyze template until `</analyze>\n`. */
export function genPrmAnalyzeContinuation(stepNumber: number): GenPrmContinuation {
  return { prefix: genPrmAnalyzeStart(stepNumber), stop: [GENPRM_ANALYZE_END] };
}

/**
 * Request B: the verification and the judgement, continuing the analysis (request A's text
 * without its stop string) and the verify template until `</output>\n`; with execution on it
 * also pauses at the end of each code block.
 */
export function genPrmVerifyContinuation(stepNumber: number, analysis: string, options: { execute?: boolean } = {}): GenPrmContinuation {
  return {
    prefix: genPrmAnalyzeStart(stepNumber) + withoutSuffix(analysis, GENPRM_ANALYZE_END) + GENPRM_ANALYZE_END + GENPRM_VERIFY_START,
    stop: options.execute ? [GENPRM_CODE_FENCE_END, GENPRM_OUTPUT_END] : [GENPRM_OUTPUT_END],
  };
}

/**
 * After a code round: the next request continues everything so far plus the block's output.
 * `generated` is what the round produced (ending with the code fence it stopped on).
 */
export function genPrmExecutionContinuation(previous: GenPrmContinuation, generated: string, codeOutput: string): GenPrmContinuation {
  return { prefix: previous.prefix + generated + codeOutputBlock(codeOutput), stop: previous.stop };
}

/**
 * The analysis-only fallback, once the code rounds are used up: the analysis up to its first
 * `</analyze>`, the closing tag and the output template, with a 20-token budget.
 */
export function genPrmFallbackContinuation(stepNumber: number, analysis: string): GenPrmContinuation {
  return {
    prefix: genPrmFallbackPrefix(stepNumber, analysis),
    stop: [GENPRM_OUTPUT_END],
    maxTokens: GENPRM_FALLBACK_MAX_TOKENS,
  };
}

export function genPrmFallbackPrefix(stepNumber: number, analysis: string): string {
  return genPrmAnalyzeStart(stepNumber) + analysis.split("</analyze>")[0] + GENPRM_ANALYZE_END + GENPRM_OUTPUT_START;
}

/** The conversation to send for a continuation: the step's messages plus the prefix as the assistant message to continue. */
export function genPrmContinuation(messages: readonly ChatMessage[], continuation: GenPrmContinuation): ChatMessage[] {
  return [...messages, { role: "assistant", content: continuation.prefix }];
}

/**
 * The text after a request: the prefix, the generated text and the stop string the sample
 * stopped on (servers leave it out unless asked to include it; it is appended only when absent).
 */
export function genPrmCompletedText(continuation: GenPrmContinuation, generated: string, stoppedOn: string | null): string {
  const text = continuation.prefix + generated;
  return stoppedOn && !generated.endsWith(stoppedOn) ? text + stoppedOn : text;
}

const PYTHON_BLOCK = /```python\s*([\s\S]*?)\s*```/g;

/** The last ```python block of the text, stripped (the block GenPRM's executor runs), or null without one. */
export function lastPythonBlock(text: string): string | null {
  let last: string | null = null;
  for (const match of text.matchAll(PYTHON_BLOCK)) last = match[1]!.trim();
  return last;
}

/** The block appended after a code round: GenPRM's `[Code Output]` wrapper around the stripped output. */
export function codeOutputBlock(output: string): string {
  return `[Code Output]\n\n\`\`\`\n${output.trim()}\n\`\`\`\n`;
}

const DECISION = /(Yes|No)\}/i;

/** The step's verdict: the first `Yes}` / `No}` in its output (any case), as GenPRM reads it. None -> unparseable. */
export function parseGenPrmVerdict(stepOutput: string): Verdict {
  const match = DECISION.exec(stepOutput);
  if (!match) return "unparseable";
  return match[1]!.toLowerCase() === "yes" ? "Positive" : "Negative";
}

/**
 * The step score P(Yes) from the last request's generated tokens: the last token whose text is
 * the decision word ("Yes" for a Positive, "No" for a Negative); its own log-probability and the
 * other word's from its top list (when absent, the smallest log-probability listed, GenPRM's
 * rule); P(Yes) = e^yes / (e^yes + e^no). Null without a verdict or without such a token.
 */
export function genPrmYesProbability(tokens: readonly TokenLogprob[], verdict: Verdict): number | null {
  if (verdict === "unparseable") return null;
  const word = verdict === "Positive" ? "Yes" : "No";
  const other = verdict === "Positive" ? "No" : "Yes";
  let decision: TokenLogprob | undefined;
  for (let index = tokens.length - 1; index >= 0; index -= 1) {
    if (tokens[index]!.token.trim() === word) {
      decision = tokens[index];
      break;
    }
  }
  if (!decision || !Number.isFinite(decision.logprob)) return null;
  const listed = decision.top.filter((alternative) => Number.isFinite(alternative.logprob));
  const otherEntry = listed.find((alternative) => alternative.token === other);
  const otherLogprob = otherEntry ? otherEntry.logprob : Math.min(decision.logprob, ...listed.map((alternative) => alternative.logprob));
  return verdict === "Positive" ? twoWaySoftmax(decision.logprob, otherLogprob) : twoWaySoftmax(otherLogprob, decision.logprob);
}

function withoutSuffix(text: string, suffix: string): string {
  return text.endsWith(suffix) ? text.slice(0, -suffix.length) : text;
}

/** The reward GenPRM's evaluator gives a sample without a readable decision (genprm_inference.py): neither yes nor no. */
export const GENPRM_UNDECIDED_REWARD = 0.5;
/** `aggregation/processbench.py`'s `--reward_threshold` default: a step scoring below it is an error. */
export const GENPRM_REWARD_THRESHOLD = 0.5;

/**
 * A step's score as GenPRM's ProcessBench evaluator reads it (`eval_logic/processbench.py`
 * `step_scores.append(sum(rewards)/len(rewards))`): the mean over the step's samples of each
 * sample's P(Yes), a sample without one counting 0.5. Null for a step with no samples.
 */
export function genPrmStepScore(sampleScores: readonly (number | null)[]): number | null {
  if (sampleScores.length === 0) return null;
  return sampleScores.reduce<number>((sum, score) => sum + (score ?? GENPRM_UNDECIDED_REWARD), 0) / sampleScores.length;
}

/** GenPRM's step verdict: Positive iff its score reaches the threshold (`r >= thr` is a correct step). */
export function genPrmStepVerdict(score: number): Verdict {
  return score >= GENPRM_REWARD_THRESHOLD ? "Positive" : "Negative";
}

/**
 * GenPRM's first-error reading (`aggregation/processbench.py`): the first step whose score is
 * below the threshold, -1 when every step reaches it.
 */
export function genPrmFirstError(stepScores: readonly number[]): number {
  return stepScores.findIndex((score) => score < GENPRM_REWARD_THRESHOLD);
}
