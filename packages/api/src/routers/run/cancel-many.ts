import { z } from "zod";
import { cancelRuns } from "../../services/run/cancel";
import { researchManageProcedure } from "../../trpc";

export const cancelManyRunsInput = z.object({ ids: z.array(z.string().min(1)).min(1, "select at least one run").max(200) });

/** Cancels each queued or running run of the selection (each audited); the others are reported as skipped, with why. */
export const cancelMany = researchManageProcedure.input(cancelManyRunsInput).mutation(({ ctx, input }) => cancelRuns({ ...ctx, input }));
