import { z } from "zod";
import { compareScaling } from "../../services/compare/scaling";
import { researchReadProcedure } from "../../trpc";

export const compareScalingInput = z.object({
  runIds: z.array(z.string().min(1)).min(1).max(8),
  /** Random K-subsets of each chunk's stored samples per K. */
  draws: z.number().int().min(1).max(200).default(20),
  seed: z.number().int().default(0),
});

/** Maj@K curves from the samples the runs stored (no new model requests): ProcessBench F1 and judge tokens per solution for K = 1, 2, 4, … */
export const scaling = researchReadProcedure.input(compareScalingInput).query(({ ctx, input }) => compareScaling({ ...ctx, input }));
