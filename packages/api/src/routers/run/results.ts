import { z } from "zod";
import { runResults } from "../../services/run/results";
import { researchReadProcedure } from "../../trpc";

export const runResultsInput = z.object({ id: z.string().min(1) });

/** A finished run's results for reading, one shape per run kind: the summary parsed, agreement, histograms, intervals, the plan's estimate. */
export const results = researchReadProcedure.input(runResultsInput).query(({ ctx, input }) => runResults({ ...ctx, input }));
