import { availableParallelism } from "node:os";

/** The settings of the grading of model outputs; the worker's, and any other process's that executes runs. */
export interface GradingSettings {
  /** STEPWISER_GRADING_THREADS: worker threads that grade model outputs' answers (default: 2, or 1 on a one-core machine). */
  gradingThreads: number;
  /**
   * STEPWISER_GRADING_TIME_LIMIT_MS: hard wall-clock limit per graded answer; a pair still running
   * then has its thread killed and counts as a timeout (not correct). Default 2000.
   */
  gradingTimeLimitMs: number;
}

export type NumberSetting = (name: string, fallback: number, options?: { min?: number; integer?: boolean }) => number;

/** Reads numeric settings from the environment: the fallback when unset, else a number checked against its bounds. */
export function numberSettings(env: NodeJS.ProcessEnv): NumberSetting {
  return (name, fallback, { min = 1, integer = false } = {}) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new Error(`${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}, got "${raw}"`);
    }
    return value;
  };
}

export function gradingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): GradingSettings {
  const num = numberSettings(env);
  return {
    gradingThreads: num("STEPWISER_GRADING_THREADS", Math.min(2, availableParallelism()), { integer: true }),
    gradingTimeLimitMs: num("STEPWISER_GRADING_TIME_LIMIT_MS", 2000, { min: 10 }),
  };
}
