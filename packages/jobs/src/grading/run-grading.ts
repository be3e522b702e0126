/**
 * The grading of model outputs during runs: one process-wide pool of grading
 * threads with a hard wall-clock limit per answer. The grader's own deadline is
 * cooperative, and some CAS work cannot be interrupted; on the main thread one
 * pathological answer would stall every run the process executes, its
 * heartbeats and its unit leases. Here it costs one thread up to the limit and
 * is graded `timeout` (not correct).
 */
import type { GradeResult } from "@stepwiser/core";
import { gradingSettingsFromEnv, type GradingSettings } from "./grading-settings";
import { GradingPool, type PoolGradeOptions } from "./grading-pool";

/**
 * How the outputs our runs sample from a policy are graded against the reference
 * answer (annotate rollouts, online or from imported batch outputs; generated
 * solutions; chunk-reset episodes): the one place to change it, e.g. to add an
 * extraction mode. The time limit is not here but in the settings
 * (STEPWISER_GRADING_TIME_LIMIT_MS), which the pool enforces.
 */
export const MODEL_OUTPUT_GRADE_OPTIONS: Readonly<PoolGradeOptions> = Object.freeze({
  // The policy prompt asks for \boxed{}; a continuation cut off at its token limit stated no answer,
  // and read leniently its last number could equal the reference by accident (docs/DECISIONS.md).
  mode: "boxed",
});

/**
 * How a stored solution's own final answer is graded when its dataset gives no
 * correctness flag (annotate units and the annotate planner): a complete text,
 * typically imported and written under another prompt, so it is read as the
 * grader reads by default rather than as a rollout of our policy prompt.
 */
export const SOLUTION_FINAL_ANSWER_GRADE_OPTIONS: Readonly<PoolGradeOptions> = Object.freeze({ mode: "lenient" });

interface SharedPool {
  pool: GradingPool;
  settings: GradingSettings;
  /** Gradings not yet answered: a pool being retired is closed once they are. */
  pending: Set<Promise<unknown>>;
}

let shared: SharedPool | null = null;
/** Settings of the next pool, given by the latest holder (a worker); null: from the environment. */
let requested: GradingSettings | null = null;
let holders = 0;
const retiring = new Set<Promise<void>>();

function sameSettings(a: GradingSettings, b: GradingSettings): boolean {
  return a.gradingThreads === b.gradingThreads && a.gradingTimeLimitMs === b.gradingTimeLimitMs;
}

function currentPool(): SharedPool {
  if (!shared) {
    const settings = requested ?? gradingSettingsFromEnv();
    const pool = new GradingPool({ threads: settings.gradingThreads, timeLimitMs: settings.gradingTimeLimitMs });
    shared = { pool, settings, pending: new Set() };
  }
  return shared;
}

/**
 * New gradings go to a new pool from now on; this one is closed once what it
 * was asked has been answered (each answer is bounded by the hard limit), so no
 * caller ever sees its grading refused because another holder let go.
 */
function retire(entry: SharedPool): Promise<void> {
  if (shared === entry) shared = null;
  const closing = Promise.allSettled([...entry.pending])
    .then(() => entry.pool.close())
    .catch(() => {}); // terminating threads that already ended is not worth a failed shutdown
  retiring.add(closing);
  void closing.finally(() => retiring.delete(closing));
  return closing;
}

function gradeOnPool(gold: string, pred: string, options: PoolGradeOptions): Promise<GradeResult> {
  const entry = currentPool();
  const grading = entry.pool.grade(gold, pred, options);
  entry.pending.add(grading);
  const forget = () => void entry.pending.delete(grading);
  grading.then(forget, forget);
  return grading;
}

/**
 * Whether `pred` (a model's output) states the reference answer `gold`, graded
 * with MODEL_OUTPUT_GRADE_OPTIONS on the shared grading threads under the hard
 * time limit. A pair still running at the limit answers `{ equivalent: false,
 * reason: "timeout" }` with the extracted answers filled in; the main thread is
 * never blocked by grading.
 */
export function gradeRolloutAnswer(gold: string, pred: string): Promise<GradeResult> {
  return gradeOnPool(gold, pred, MODEL_OUTPUT_GRADE_OPTIONS);
}

/** As gradeRolloutAnswer, for a stored solution's own final answer (SOLUTION_FINAL_ANSWER_GRADE_OPTIONS). */
export function gradeSolutionFinalAnswer(gold: string, solutionText: string): Promise<GradeResult> {
  return gradeOnPool(gold, solutionText, SOLUTION_FINAL_ANSWER_GRADE_OPTIONS);
}

/**
 * Holds the grading service for a worker: the pool is created on first use with
 * these settings (a pool made with others is replaced, after its gradings are
 * answered), and closed when the last holder lets go. Processes that execute
 * runs without a worker (tests, the planner) need not hold it: the pool is made
 * on first use with the environment's settings, and idle threads never keep a
 * process alive.
 */
export function holdRunGrading(settings?: GradingSettings): () => Promise<void> {
  holders += 1;
  if (settings) {
    requested = { gradingThreads: settings.gradingThreads, gradingTimeLimitMs: settings.gradingTimeLimitMs };
    if (shared && !sameSettings(shared.settings, requested)) void retire(shared);
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    holders -= 1;
    if (holders > 0) return;
    requested = null;
    await closeRunGrading();
  };
}

/** Closes the shared pool once its pending gradings are answered; a later grading starts a new one. */
export async function closeRunGrading(): Promise<void> {
  if (shared) void retire(shared);
  await Promise.all([...retiring]);
}

/** Resolves once every thread of the pool gradings go to now is up (starting the pool if none is). */
export function runGradingReady(): Promise<void> {
  return currentPool().pool.ready();
}

/** The settings of the pool gradings go to now, or null before the first grading. */
export function runGradingSettings(): GradingSettings | null {
  return shared ? { ...shared.settings } : null;
}
