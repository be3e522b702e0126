import { CHUNK_CLOSE_TAG, CHUNK_OPEN_TAG, type Rng } from "@stepwiser/core";
import { WorldParseError } from "./errors";
import { applyOperation, OPERATION_SYMBOLS, type ArithProblem, type Operation } from "./problem";
import type { PolicyRates } from "./q-values";
import {
  answerChunkText,
  isStateCorrect,
  recoveryChunkText,
  solutionStateAfter,
  stepChunkText,
  type SolutionState,
  type WrittenEquation,
} from "./solution";

/**
 * What the next chunk does:
 * - from a right running value: `correct` (1 − p) or `error` (p);
 * - from a wrong one: `recovery` (q), `carry` (the next operation applied
 *   correctly to the wrong value, (1 − q)(1 − p)) or `carry-error` (a new
 *   slip on top, (1 − q)·p);
 * - once every operation is done: `answer` (the running value as written).
 */
export type ChunkOutcome = "correct" | "error" | "recovery" | "carry" | "carry-error" | "answer";

export interface ChunkCandidate {
  text: string;
  probability: number;
  outcome: ChunkOutcome;
  /** The solution state after this chunk. */
  state: SolutionState;
}

/** Off-by errors are small; a wrong operation takes this share of an error's probability when it is possible. */
const OFF_BY = [-3, -2, -1, 1, 2, 3] as const;
export const WRONG_OPERATION_SHARE = 0.25;

/** The operation a sloppy solver confuses with the right one. */
function confusedOperation(operation: Operation): { symbol: WrittenEquation["symbol"]; apply: (value: number) => number } {
  switch (operation.kind) {
    case "add":
      return { symbol: "×", apply: (value) => value * operation.operand };
    case "subtract":
      return { symbol: "+", apply: (value) => value + operation.operand };
    case "multiply":
      return { symbol: "+", apply: (value) => value + operation.operand };
    case "divide":
      return { symbol: "-", apply: (value) => value - operation.operand };
  }
}

function afterStep(state: SolutionState, result: number): SolutionState {
  return { opsDone: state.opsDone + 1, written: result, writtenValues: [...state.writtenValues, result], answered: null };
}

/**
 * Error candidates from input `left`: off-by slips around `base` (what the
 * written step would give without a slip) and the confused operation. None
 * lands on `trueResult`, so an error never produces the right value by
 * accident; results stay ≥ 0 unless the input already went negative.
 */
function errorCandidates(
  problem: ArithProblem,
  state: SolutionState,
  left: number,
  base: number,
  trueResult: number,
  mass: number,
  outcome: ChunkOutcome,
): ChunkCandidate[] {
  const operation = problem.operations[state.opsDone]!;
  const symbol = OPERATION_SYMBOLS[operation.kind];
  const allowNegative = left < 0 || base < 0;
  const results = OFF_BY.map((d) => base + d).filter((value) => value !== trueResult && value !== base && (allowNegative || value >= 0));
  const confused = confusedOperation(operation);
  const confusedResult = confused.apply(left);
  const confusedValid = confusedResult !== trueResult && (allowNegative || confusedResult >= 0);
  const offByMass = confusedValid ? mass * (1 - WRONG_OPERATION_SHARE) : mass;
  const candidates = results.map((result) => {
    const equation: WrittenEquation = { left, symbol, right: operation.operand, result };
    return { text: stepChunkText(problem, state.opsDone, equation), probability: offByMass / results.length, outcome, state: afterStep(state, result) };
  });
  if (confusedValid) {
    const equation: WrittenEquation = { left, symbol: confused.symbol, right: operation.operand, result: confusedResult };
    candidates.push({
      text: stepChunkText(problem, state.opsDone, equation),
      probability: mass * WRONG_OPERATION_SHARE,
      outcome,
      state: afterStep(state, confusedResult),
    });
  }
  return candidates;
}

/** Index of the step where the current run of wrong running values began. */
function wrongRunStart(problem: ArithProblem, state: SolutionState): number {
  let start = state.opsDone - 1;
  while (start > 0 && state.writtenValues[start - 1] !== problem.values[start]) start--;
  return start;
}

/**
 * Every chunk the policy may write next from `state`, with its probability
 * (they sum to 1; zero-probability ones are kept so a partial chunk can still
 * be matched against them). Empty once the answer is given.
 */
export function nextChunkCandidates(problem: ArithProblem, state: SolutionState, rates: PolicyRates): ChunkCandidate[] {
  if (state.answered !== null) return [];
  const k = problem.operations.length;
  if (state.opsDone >= k) {
    return [{ text: answerChunkText(state.written), probability: 1, outcome: "answer", state: { ...state, answered: state.written } }];
  }
  const p = rates.errorRate;
  const q = rates.recoveryRate;
  const i = state.opsDone;
  const operation = problem.operations[i]!;
  const symbol = OPERATION_SYMBOLS[operation.kind];
  const trueBefore = problem.values[i]!;
  const trueResult = problem.values[i + 1]!;
  const rightEquation: WrittenEquation = { left: trueBefore, symbol, right: operation.operand, result: trueResult };

  if (isStateCorrect(problem, state)) {
    return [
      { text: stepChunkText(problem, i, rightEquation), probability: 1 - p, outcome: "correct", state: afterStep(state, trueResult) },
      ...errorCandidates(problem, state, trueBefore, trueResult, trueResult, p, "error"),
    ];
  }

  const runStart = wrongRunStart(problem, state);
  const rechecks: WrittenEquation[] = [];
  for (let t = runStart; t < i; t++) {
    const step = problem.operations[t]!;
    rechecks.push({ left: problem.values[t]!, symbol: OPERATION_SYMBOLS[step.kind], right: step.operand, result: problem.values[t + 1]! });
  }
  const recovery: ChunkCandidate = {
    text: recoveryChunkText(rechecks, state.writtenValues[runStart]!, rightEquation),
    probability: q,
    outcome: "recovery",
    state: afterStep(state, trueResult),
  };
  // Carrying a wrong value through a division that does not come out even:
  // the solver rounds, to whichever neighbour is not the true result.
  const exact = applyOperation(operation.kind, state.written, operation.operand);
  const rounded = Math.floor(state.written / operation.operand);
  const carried = exact ?? (rounded !== trueResult ? rounded : rounded + 1);
  const carryEquation: WrittenEquation = { left: state.written, symbol, right: operation.operand, result: carried };
  return [
    recovery,
    { text: stepChunkText(problem, i, carryEquation), probability: (1 - q) * (1 - p), outcome: "carry", state: afterStep(state, carried) },
    ...errorCandidates(problem, state, state.written, carried, trueResult, (1 - q) * p, "carry-error"),
  ];
}

/**
 * Picks a candidate: by probability with `rng`, or the most probable one
 * (ties to the earlier, better-behaved candidate) when `rng` is null
 * (greedy decoding, temperature 0).
 */
export function chooseCandidate(candidates: readonly ChunkCandidate[], rng: Rng | null): ChunkCandidate {
  const first = candidates[0];
  if (!first) throw new RangeError("no candidate to choose from");
  const total = candidates.reduce((sum, candidate) => sum + candidate.probability, 0);
  if (rng === null || total <= 0) {
    return candidates.reduce((best, candidate) => (candidate.probability > best.probability ? candidate : best), first);
  }
  let threshold = rng.nextFloat() * total;
  for (const candidate of candidates) {
    threshold -= candidate.probability;
    if (threshold < 0) return candidate;
  }
  return candidates.findLast((candidate) => candidate.probability > 0) ?? first;
}

/** Samples the chunks of a whole solution from `state` onward (default: from scratch). */
export function sampleSolutionChunks(
  problem: ArithProblem,
  rates: PolicyRates,
  rng: Rng | null,
  from: SolutionState = solutionStateAfter(problem, []),
): string[] {
  const chunks: string[] = [];
  let state = from;
  for (let candidates = nextChunkCandidates(problem, state, rates); candidates.length > 0; candidates = nextChunkCandidates(problem, state, rates)) {
    const chosen = chooseCandidate(candidates, rng);
    chunks.push(chosen.text);
    state = chosen.state;
  }
  return chunks;
}

/** A policy's partial output: complete chunks, then maybe a chunk (or an open tag) cut off mid-way. */
export interface PartialSolution {
  completeChunks: string[];
  /** The text after an unclosed `<chunk>`, or null when every chunk is closed. */
  openChunk: string | null;
  /** A cut-off opening tag at the end, such as "<chu"; "" if none. */
  pendingTag: string;
  /** Whether the text ends with whitespace after its last complete chunk (decides whether a newline is needed). */
  endsWithWhitespace: boolean;
}

function isProperPrefixOf(part: string, whole: string): boolean {
  return part.length > 0 && part.length < whole.length && whole.startsWith(part);
}

/** Splits a partial policy output; throws `WorldParseError` for text outside the chunk tags. */
export function readPartialSolution(text: string): PartialSolution {
  const completeChunks: string[] = [];
  let at = 0;
  for (;;) {
    const rest = text.slice(at);
    const trimmed = rest.trimStart();
    const from = at + rest.length - trimmed.length;
    if (trimmed === "") return { completeChunks, openChunk: null, pendingTag: "", endsWithWhitespace: from > at };
    if (trimmed.startsWith(CHUNK_OPEN_TAG)) {
      const contentStart = from + CHUNK_OPEN_TAG.length;
      const close = text.indexOf(CHUNK_CLOSE_TAG, contentStart);
      if (close === -1) return { completeChunks, openChunk: text.slice(contentStart), pendingTag: "", endsWithWhitespace: false };
      completeChunks.push(text.slice(contentStart, close));
      at = close + CHUNK_CLOSE_TAG.length;
      continue;
    }
    if (isProperPrefixOf(trimmed, CHUNK_OPEN_TAG)) return { completeChunks, openChunk: null, pendingTag: trimmed, endsWithWhitespace: false };
    throw new WorldParseError(`text outside the chunk tags in the partial solution: ${JSON.stringify(trimmed.slice(0, 80))}`);
  }
}

/**
 * The candidate an open chunk is the beginning of, and what finishes it.
 * The open text may end with a cut-off closing tag ("…= 17.</chu").
 */
function finishOpenChunk(candidates: readonly ChunkCandidate[], openChunk: string, rng: Rng | null): { chosen: ChunkCandidate; rest: string } {
  const written = openChunk.trimStart();
  const closeAt = written.lastIndexOf("</");
  const cutTag = closeAt !== -1 && isProperPrefixOf(written.slice(closeAt), CHUNK_CLOSE_TAG) ? written.slice(closeAt) : "";
  if (cutTag !== "") {
    const body = written.slice(0, written.length - cutTag.length).trimEnd();
    const chosen = candidates.find((candidate) => candidate.text === body);
    if (chosen) return { chosen, rest: CHUNK_CLOSE_TAG.slice(cutTag.length) };
  } else {
    const matching = candidates.filter((candidate) => candidate.text.startsWith(written) || candidate.text === written.trimEnd());
    if (matching.length > 0) {
      const chosen = chooseCandidate(matching, rng);
      const rest = chosen.text.startsWith(written) ? chosen.text.slice(written.length) : "";
      return { chosen, rest: rest + CHUNK_CLOSE_TAG };
    }
  }
  throw new WorldParseError(`the open chunk is not one this policy writes here: ${JSON.stringify(openChunk.slice(0, 120))}`);
}

/**
 * The continuation of a partial solution, chunks separated by "\n": the state
 * is re-derived from what the prefix wrote (running value as written, possibly
 * wrong; operations done), a cut-off chunk is finished as one of the chunks
 * the policy could write there, and the rest is sampled with `rng` (greedy
 * when null). Returns "" once the answer has been given. Throws
 * `WorldParseError` when the prefix is not this world's text.
 */
export function continueSolution(problem: ArithProblem, partialText: string, rates: PolicyRates, rng: Rng | null): string {
  const partial = readPartialSolution(partialText);
  let state = solutionStateAfter(problem, partial.completeChunks);
  let out = "";
  if (partial.openChunk !== null) {
    const { chosen, rest } = finishOpenChunk(nextChunkCandidates(problem, state, rates), partial.openChunk, rng);
    out += rest;
    state = chosen.state;
  } else if (state.answered !== null) {
    if (partial.pendingTag !== "") throw new WorldParseError("a chunk is being opened after the final answer");
    return "";
  }
  const chunks = sampleSolutionChunks(problem, rates, rng, state);
  chunks.forEach((chunk, index) => {
    const opener =
      index > 0 || out !== ""
        ? `\n${CHUNK_OPEN_TAG}`
        : partial.pendingTag !== ""
          ? CHUNK_OPEN_TAG.slice(partial.pendingTag.length)
          : partial.completeChunks.length > 0 && !partial.endsWithWhitespace
            ? `\n${CHUNK_OPEN_TAG}`
            : CHUNK_OPEN_TAG;
    out += `${opener}${chunk}${CHUNK_CLOSE_TAG}`;
  });
  return out;
}
