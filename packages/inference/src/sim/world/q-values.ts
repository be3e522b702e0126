import type { ChunkLike } from "@stepwiser/core";
import type { ArithProblem } from "./problem";
import { isStateCorrect, solutionStateAfter, type SolutionState } from "./solution";

/** The policy's two probabilities; see the world's documentation in ./index.ts. */
export interface PolicyRates {
  /** p: probability that a step makes a new error. */
  errorRate: number;
  /** q: probability that a step taken from a wrong running value recovers the right one. */
  recoveryRate: number;
}

function checkRates({ errorRate, recoveryRate }: PolicyRates): void {
  for (const [name, value] of [
    ["errorRate", errorRate],
    ["recoveryRate", recoveryRate],
  ] as const) {
    if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${value}`);
  }
}

/**
 * Probability of ending with the right answer from a state with `stepsLeft`
 * operations to go. The two-state chain:
 *   V(0, right) = 1, V(0, wrong) = 0
 *   V(r, right) = (1 − p)·V(r−1, right) + p·V(r−1, wrong)
 *   V(r, wrong) = q·V(r−1, right) + (1 − q)·V(r−1, wrong)
 */
export function valueOfState(stepsLeft: number, stateCorrect: boolean, rates: PolicyRates): number {
  checkRates(rates);
  if (!Number.isInteger(stepsLeft) || stepsLeft < 0) throw new RangeError(`stepsLeft must be a non-negative integer, got ${stepsLeft}`);
  const p = rates.errorRate;
  const q = rates.recoveryRate;
  let right = 1;
  let wrong = 0;
  for (let r = 1; r <= stepsLeft; r++) {
    [right, wrong] = [(1 - p) * right + p * wrong, q * right + (1 - q) * wrong];
  }
  return stateCorrect ? right : wrong;
}

/** Q of a solution state: exact, by `valueOfState`; a given answer is worth 1 if right, else 0. */
export function qValueOfState(problem: ArithProblem, state: SolutionState, rates: PolicyRates): number {
  if (state.answered !== null) return state.answered === problem.answer ? 1 : 0;
  const stepsLeft = Math.max(0, problem.operations.length - state.opsDone);
  return valueOfState(stepsLeft, isStateCorrect(problem, state), rates);
}

/**
 * The true Q-value of a prefix [problem, a_1 .. a_i]: the probability that the
 * policy, continuing from it, ends with the right answer. Throws
 * `WorldParseError` if a chunk is not this world's.
 */
export function trueQValue(problem: ArithProblem, prefixChunks: readonly ChunkLike[], rates: PolicyRates): number {
  return qValueOfState(problem, solutionStateAfter(problem, prefixChunks), rates);
}

/** Q_0: the value of the bare problem, i.e. the policy's pass rate. */
export function initialQValue(problem: ArithProblem, rates: PolicyRates): number {
  return valueOfState(problem.operations.length, true, rates);
}

/** Q_0 and Q_i after each chunk i of a solution. */
export function trueQValues(problem: ArithProblem, chunks: readonly ChunkLike[], rates: PolicyRates): { q0: number; q: number[] } {
  return {
    q0: initialQValue(problem, rates),
    q: chunks.map((_chunk, i) => trueQValue(problem, chunks.slice(0, i + 1), rates)),
  };
}
