/** Which comparison decided a verdict (see `docs/grading-known-limits.md`). */
export type GradeReason = "string" | "numeric" | "symbolic" | "timeout" | "unparseable";

/** The verdict of one comparison step. */
export interface Outcome {
  equal: boolean;
  reason: GradeReason;
}

/**
 * The time left for one pair. The clock is injected so core never reads the
 * wall clock on its own; the CAS is handed the remaining milliseconds.
 */
export interface Budget {
  now: () => number;
  /** Absolute time, on the `now` clock, when the pair must be decided. */
  deadline: number;
}

export function remainingMs(budget: Budget): number {
  return budget.deadline - budget.now();
}

export const TIMEOUT: Outcome = { equal: false, reason: "timeout" };
export const UNPARSEABLE: Outcome = { equal: false, reason: "unparseable" };
