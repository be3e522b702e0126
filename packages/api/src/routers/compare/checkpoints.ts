import { compareCheckpoints } from "@stepwiser/core";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { researchReadProcedure } from "../../trpc";
import { loadCommonGold, loadComparableRuns } from "./runs";

export const compareCheckpointsInput = z.object({
  runIds: z.array(z.string().min(1)).min(2).max(8),
  baselineRunId: z.string().min(1),
  /** Bootstrap resamples and seed; the defaults are the benchmark run's, so a full benchmark's F1 interval equals its summary's. */
  resamples: z.number().int().min(100).max(20_000).default(1000),
  seed: z.number().int().default(0),
});

/**
 * ProcessBench scores of 2–8 runs on the same gold solutions (see
 * `loadCommonGold`), each with 95 % percentile-bootstrap intervals per subset
 * and on average, and each non-baseline run's paired-bootstrap difference from
 * the baseline with its interval and p-value.
 */
export const checkpoints = researchReadProcedure.input(compareCheckpointsInput).query(async ({ ctx, input }) => {
  if (!input.runIds.includes(input.baselineRunId)) {
    throw new TRPCError({ code: "BAD_REQUEST", message: `the baseline ${input.baselineRunId} must be one of the compared runs` });
  }
  const runs = await loadComparableRuns(ctx.db, input.runIds);
  const { gold, predictions } = await loadCommonGold(ctx.db, runs);
  if (gold.length === 0) {
    throw new TRPCError({ code: "BAD_REQUEST", message: "these runs share no solution with a gold first error: nothing to compare on" });
  }
  const comparison = compareCheckpoints({
    gold,
    runs: runs.map((run) => ({ id: run.id, predictions: predictions.get(run.id)! })),
    baselineId: input.baselineRunId,
    resamples: input.resamples,
    seed: input.seed,
  });
  const dataset = await ctx.db.dataset.findUnique({ where: { id: runs[0]!.datasetId }, select: { id: true, name: true } });
  return {
    dataset,
    subsets: comparison.subsets,
    gold: comparison.gold,
    baselineRunId: comparison.baselineId,
    resamples: comparison.resamples,
    confidence: comparison.confidence,
    seed: input.seed,
    runs: runs.map((run, i) => ({ run, ...comparison.runs[i]! })),
  };
});
