import { type ChunkLike } from "@stepwiser/core";
import { WorldParseError } from "./errors";
import { capitalize } from "./text";
import { applyOperation, OPERATION_SYMBOLS, operationClause, type ArithProblem, type OperationKind, type OperationSymbol } from "./problem";

/** `left symbol right = result` as written in a chunk (the result may be wrong). */
export interface WrittenEquation {
  left: number;
  symbol: OperationSymbol;
  right: number;
  result: number;
}

export type WorldChunk =
  /** "She buys 5 more: 12 + 5 = 17." */
  | { kind: "step"; subject: string; clause: string; equation: WrittenEquation }
  /** "Wait, let me recheck: 12 + 5 = 17, not 18. So now 17 × 2 = 34." */
  | { kind: "recovery"; rechecks: WrittenEquation[]; rejectedValue: number; equation: WrittenEquation }
  /** "So the answer is \boxed{34}." */
  | { kind: "answer"; value: number };

const SYMBOL_KIND: Readonly<Record<OperationSymbol, OperationKind>> = { "+": "add", "-": "subtract", "×": "multiply", "÷": "divide" };

export function formatEquation({ left, symbol, right, result }: WrittenEquation): string {
  return `${left} ${symbol} ${right} = ${result}`;
}

/** The true value of the written left-hand side, or null for an inexact division. */
export function evaluateEquationLeft(equation: WrittenEquation): number | null {
  return applyOperation(SYMBOL_KIND[equation.symbol], equation.left, equation.right);
}

export function isEquationArithmeticCorrect(equation: WrittenEquation): boolean {
  return evaluateEquationLeft(equation) === equation.result;
}

export function stepChunkText(problem: ArithProblem, stepIndex: number, equation: WrittenEquation): string {
  const operation = problem.operations[stepIndex];
  if (!operation) throw new RangeError(`the problem has no operation ${stepIndex}`);
  return `${capitalize(problem.pronoun)} ${operationClause(operation, problem.pronoun)}: ${formatEquation(equation)}.`;
}

export function recoveryChunkText(rechecks: readonly WrittenEquation[], rejectedValue: number, equation: WrittenEquation): string {
  const [first, ...rest] = rechecks;
  if (!first) throw new RangeError("a recovery rechecks at least one step");
  const chain = [`${formatEquation(first)}, not ${rejectedValue}`, ...rest.map(formatEquation)].join(", then ");
  return `Wait, let me recheck: ${chain}. So now ${formatEquation(equation)}.`;
}

export function answerChunkText(value: number): string {
  return `So the answer is \\boxed{${value}}.`;
}

const EQUATION = String.raw`(-?\d+) ([+×÷-]) (\d+) = (-?\d+)`;
const STEP_CHUNK = new RegExp(String.raw`^(She|He) ([^:]+): ${EQUATION}\.$`);
const RECOVERY_CHUNK = new RegExp(String.raw`^Wait, let me recheck: ${EQUATION}, not (-?\d+)((?:, then ${EQUATION})*)\. So now ${EQUATION}\.$`);
const ANSWER_CHUNK = /^So the answer is \\boxed\{(-?\d+)\}\.$/;
const EQUATION_GLOBAL = new RegExp(EQUATION, "g");

function equationFrom(groups: ReadonlyArray<string | undefined>, at: number): WrittenEquation {
  return { left: Number(groups[at]), symbol: groups[at + 1] as OperationSymbol, right: Number(groups[at + 2]), result: Number(groups[at + 3]) };
}

/** Reads one chunk this world writes (outer whitespace ignored); null for any other text. */
export function parseWorldChunk(text: string): WorldChunk | null {
  const core = text.trim();
  const step = STEP_CHUNK.exec(core);
  if (step) return { kind: "step", subject: step[1]!, clause: step[2]!, equation: equationFrom(step, 3) };
  const recovery = RECOVERY_CHUNK.exec(core);
  if (recovery) {
    const later = [...(recovery[6] ?? "").matchAll(EQUATION_GLOBAL)].map((match) => equationFrom(match, 1));
    return {
      kind: "recovery",
      rechecks: [equationFrom(recovery, 1), ...later],
      rejectedValue: Number(recovery[5]),
      equation: equationFrom(recovery, 11),
    };
  }
  const answer = ANSWER_CHUNK.exec(core);
  if (answer) return { kind: "answer", value: Number(answer[1]) };
  return null;
}

export type ChunkVerdictReason =
  /** A correct step (or a valid recovery, or the right final answer). */
  | "correct"
  | "recovery"
  /** Right input and operation, wrong result. */
  | "arithmetic-error"
  /** Right input, but not the operation (or amount) the problem states. */
  | "wrong-operation"
  /** Starts from a running value that is already wrong (an earlier error carried on). */
  | "wrong-input"
  /** A recheck whose own arithmetic is wrong, or that does not land on the right value. */
  | "bad-recovery"
  | "wrong-answer"
  /** A step after all operations are done, or any chunk after the final answer. */
  | "extra-chunk";

export interface ChunkTruth {
  index: number;
  kind: WorldChunk["kind"];
  chunk: WorldChunk;
  correct: boolean;
  reason: ChunkVerdictReason;
  /** Operations done before this chunk (the operation a step chunk should perform). */
  stepIndex: number;
  /** The running value before the chunk: as written in the solution, and as it should be. */
  writtenBefore: number;
  trueBefore: number;
  /** After the chunk. */
  writtenAfter: number;
  trueAfter: number;
  /** Whether the running value after the chunk is the right one (for an answer chunk: the answer is right). */
  stateCorrect: boolean;
}

export interface SolutionTruth {
  chunks: ChunkTruth[];
  /** Index of the first chunk that is not correct, -1 if none. */
  firstErrorIndex: number;
  /** The value of the answer chunk, null if the solution has none (yet). */
  finalAnswer: number | null;
  finalAnswerCorrect: boolean;
}

/**
 * Where a (partial) solution stands: how many operations it has written, the
 * running value as written, and, if it has given its answer, that answer.
 * `writtenValues[i]` is the value written after operation i.
 */
export interface SolutionState {
  opsDone: number;
  written: number;
  writtenValues: number[];
  answered: number | null;
}

function trueValueAt(problem: ArithProblem, opsDone: number): number {
  return problem.values[Math.min(opsDone, problem.operations.length)]!;
}

export function isStateCorrect(problem: ArithProblem, state: SolutionState): boolean {
  return state.answered !== null ? state.answered === problem.answer : state.written === trueValueAt(problem, state.opsDone);
}

export function initialSolutionState(problem: ArithProblem): SolutionState {
  return { opsDone: 0, written: problem.start, writtenValues: [], answered: null };
}

function judgeStep(problem: ArithProblem, stepIndex: number, trueBefore: number, equation: WrittenEquation): ChunkVerdictReason {
  const operation = problem.operations[stepIndex];
  if (!operation) return "extra-chunk";
  if (equation.left !== trueBefore) return "wrong-input";
  if (OPERATION_SYMBOLS[operation.kind] !== equation.symbol || operation.operand !== equation.right) return "wrong-operation";
  return isEquationArithmeticCorrect(equation) ? "correct" : "arithmetic-error";
}

/**
 * Reads a solution chunk by chunk against the problem. A step chunk is
 * correct iff it applies the problem's next operation to the right running
 * value and gets the right result; a step that correctly continues from a
 * wrong value is not correct (reason "wrong-input"). A recovery is correct iff
 * its rechecks are arithmetically right and its final equation is the right
 * step. Throws `WorldParseError` for a chunk this world does not write.
 */
export function truthOfSolution(problem: ArithProblem, chunks: readonly ChunkLike[]): SolutionTruth {
  const state = initialSolutionState(problem);
  const truths: ChunkTruth[] = [];
  chunks.forEach((chunkLike, index) => {
    const text = typeof chunkLike === "string" ? chunkLike : chunkLike.text;
    const chunk = parseWorldChunk(text);
    if (!chunk) throw new WorldParseError(`chunk ${index} is not an arithmetic-world chunk: ${JSON.stringify(text.slice(0, 120))}`);
    const stepIndex = state.opsDone;
    const writtenBefore = state.answered ?? state.written;
    const trueBefore = trueValueAt(problem, stepIndex);
    let reason: ChunkVerdictReason;
    if (state.answered !== null) {
      reason = "extra-chunk";
    } else if (chunk.kind === "answer") {
      reason = chunk.value === problem.answer ? "correct" : "wrong-answer";
      state.answered = chunk.value;
    } else {
      reason = judgeStep(problem, stepIndex, trueBefore, chunk.equation);
      if (chunk.kind === "recovery" && reason === "correct") {
        reason = chunk.rechecks.every(isEquationArithmeticCorrect) ? "recovery" : "bad-recovery";
      } else if (chunk.kind === "recovery" && reason !== "extra-chunk") {
        reason = "bad-recovery";
      }
      state.opsDone += 1;
      state.written = chunk.equation.result;
      state.writtenValues.push(chunk.equation.result);
    }
    truths.push({
      index,
      kind: chunk.kind,
      chunk,
      correct: reason === "correct" || reason === "recovery",
      reason,
      stepIndex,
      writtenBefore,
      trueBefore,
      writtenAfter: state.answered ?? state.written,
      trueAfter: state.answered !== null ? problem.answer : trueValueAt(problem, state.opsDone),
      stateCorrect: isStateCorrect(problem, state),
    });
  });
  return {
    chunks: truths,
    firstErrorIndex: truths.findIndex((truth) => !truth.correct),
    finalAnswer: state.answered,
    finalAnswerCorrect: state.answered === problem.answer,
  };
}

/** The state after the given complete chunks. Throws `WorldParseError` for a chunk this world does not write. */
export function solutionStateAfter(problem: ArithProblem, chunks: readonly ChunkLike[]): SolutionState {
  const state = initialSolutionState(problem);
  chunks.forEach((chunkLike, index) => {
    const text = typeof chunkLike === "string" ? chunkLike : chunkLike.text;
    const chunk = parseWorldChunk(text);
    if (!chunk) throw new WorldParseError(`chunk ${index} is not an arithmetic-world chunk: ${JSON.stringify(text.slice(0, 120))}`);
    if (state.answered !== null) return;
    if (chunk.kind === "answer") {
      state.answered = chunk.value;
    } else {
      state.opsDone += 1;
      state.written = chunk.equation.result;
      state.writtenValues.push(chunk.equation.result);
    }
  });
  return state;
}
