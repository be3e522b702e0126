import { z } from "zod";
import { inspectSolution } from "../../services/solution/inspect";
import { researchReadProcedure } from "../../trpc";

export const inspectSolutionInput = z.object({ id: z.string().min(1) });

/** A solution with everything the inspector shows beside its chunks: every annotate run's Q-values and every judge sample, grouped by run. */
export const inspect = researchReadProcedure.input(inspectSolutionInput).query(({ ctx, input }) => inspectSolution({ ...ctx, input }));
