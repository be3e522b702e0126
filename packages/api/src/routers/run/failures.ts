import { z } from "zod";
import { runFailures } from "../../services/run/failures";
import { researchReadProcedure } from "../../trpc";

export const runFailuresInput = z.object({ id: z.string().min(1), limit: z.number().int().min(1).max(200).default(50) });

/** Units that failed, or wait for a retry after an error, with the solution each was about when its key names one. */
export const failures = researchReadProcedure.input(runFailuresInput).query(({ ctx, input }) => runFailures({ ...ctx, input }));
