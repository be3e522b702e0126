import { z } from "zod";
import { compareCheckpointRuns } from "../../services/compare/checkpoints";
import { researchReadProcedure } from "../../trpc";

export const compareCheckpointsInput = z.object({
  runIds: z.array(z.string().min(1)).min(2).max(8),
  baselineRunId: z.string().min(1),
  /** Bootstrap resamples and seed; the defaults are the benchmark run's, so a full benchmark's F1 interval equals its summary's. */
  resamples: z.number().int().min(100).max(20_000).default(1000),
  seed: z.number().int().default(0),
});

/** ProcessBench scores of 2–8 runs on the same gold solutions with bootstrap intervals, and each run's paired difference from the baseline. */
export const checkpoints = researchReadProcedure.input(compareCheckpointsInput).query(({ ctx, input }) => compareCheckpointRuns({ ...ctx, input }));
