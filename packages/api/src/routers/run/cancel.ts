import { z } from "zod";
import { cancelRun } from "../../services/run/cancel";
import { researchManageProcedure } from "../../trpc";

export const cancelRunInput = z.object({ id: z.string().min(1) });

/** Marks a queued or running run for cancellation (audited); any other run is refused as bad input. */
export const cancel = researchManageProcedure.input(cancelRunInput).mutation(({ ctx, input }) => cancelRun({ ...ctx, input }));
