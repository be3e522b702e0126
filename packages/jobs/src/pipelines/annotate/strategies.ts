import type { RunContext } from "../../runs/run-kind";
import type { AnnotateConfig } from "./config";
import { rolloutOutcomes, type SolutionUnderAnnotation } from "./rollouts";

/** Rollouts drawn from one prefix: how many, and how many reached the right answer. */
export interface PrefixEstimate {
  prefixLength: number;
  rollouts: number;
  correct: number;
}

export interface StrategyResult {
  /** Prefixes sampled (prefix 0 is the bare problem). */
  estimates: PrefixEstimate[];
  /** Per chunk i: whether a success was witnessed from prefix i+1 (the last entry is the final answer). */
  successAtPrefix: boolean[];
}

const indices = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** M rollouts from every prefix 0..k-1; prefix k is the solution itself. */
export async function annotateFixed(ctx: RunContext<AnnotateConfig>, solution: SolutionUnderAnnotation, finalCorrect: boolean): Promise<StrategyResult> {
  const k = solution.chunks.length;
  const m = ctx.config.rollouts;
  const estimates = await Promise.all(
    indices(0, k).map(async (prefixLength) => {
      const outcomes = await rolloutOutcomes(ctx, solution, prefixLength, indices(0, m));
      return { prefixLength, rollouts: m, correct: outcomes.filter(Boolean).length };
    }),
  );
  const successAtPrefix = indices(1, k).map((length) => (length === k ? finalCorrect : estimates[length]!.correct > 0));
  return { estimates, successAtPrefix };
}

/**
 * Draws the M seeds of one prefix in batches, in seed order, and stops at the
 * first success: "any success among the M seeds" is decided exactly as `fixed`
 * decides it, with fewer rollouts.
 */
async function anySuccess(ctx: RunContext<AnnotateConfig>, solution: SolutionUnderAnnotation, prefixLength: number): Promise<PrefixEstimate & { success: boolean }> {
  const { rollouts: m, earlyStopBatch } = ctx.config;
  let drawn = 0;
  let correct = 0;
  while (drawn < m) {
    const batch = indices(drawn, Math.min(earlyStopBatch, m - drawn));
    const outcomes = await rolloutOutcomes(ctx, solution, prefixLength, batch);
    const firstSuccess = outcomes.indexOf(true);
    if (firstSuccess !== -1) {
      drawn += firstSuccess + 1;
      correct += 1;
      return { prefixLength, rollouts: drawn, correct, success: true };
    }
    drawn += batch.length;
  }
  return { prefixLength, rollouts: drawn, correct, success: false };
}

/**
 * Abs-Q with early stopping: a correct final answer settles every chunk at once;
 * otherwise prefixes are tried from the last backwards, and the first one with a
 * success settles all earlier ones (its success continues them too).
 */
export async function annotateEarlyStop(ctx: RunContext<AnnotateConfig>, solution: SolutionUnderAnnotation, finalCorrect: boolean): Promise<StrategyResult> {
  const k = solution.chunks.length;
  const successAtPrefix = new Array<boolean>(k).fill(false);
  const estimates: PrefixEstimate[] = [];
  if (finalCorrect) {
    successAtPrefix[k - 1] = true;
    return { estimates, successAtPrefix };
  }
  for (let length = k - 1; length >= 1; length--) {
    const estimate = await anySuccess(ctx, solution, length);
    estimates.push(estimate);
    if (estimate.success) {
      successAtPrefix[length - 1] = true;
      break;
    }
  }
  return { estimates: estimates.reverse(), successAtPrefix };
}

/**
 * Binary search for the first prefix with no success (OmegaPRM), assuming
 * success is monotone along the solution: about log2(k) probes instead of k.
 */
export async function annotateFirstError(ctx: RunContext<AnnotateConfig>, solution: SolutionUnderAnnotation, finalCorrect: boolean): Promise<StrategyResult> {
  const k = solution.chunks.length;
  const successAtPrefix = new Array<boolean>(k).fill(false);
  const estimates: PrefixEstimate[] = [];
  if (finalCorrect) {
    successAtPrefix[k - 1] = true;
    return { estimates, successAtPrefix };
  }
  // Invariant: prefix `hi` has no success; prefix `lo` has one (or lo = 0, untested).
  let lo = 0;
  let hi = k;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const estimate = await anySuccess(ctx, solution, mid);
    estimates.push(estimate);
    if (estimate.success) lo = mid;
    else hi = mid;
  }
  // Every prefix before `hi` is taken to have succeeded; witnessing it at lo ≥ 1 marks them all.
  if (lo >= 1) successAtPrefix[lo - 1] = true;
  return { estimates: estimates.sort((a, b) => a.prefixLength - b.prefixLength), successAtPrefix };
}
