import { z } from "zod";
import { runConfidence } from "../../services/run/confidence-histogram";
import { researchReadProcedure } from "../../trpc";

export const runConfidenceInput = z.object({ id: z.string().min(1) });

/** How sure an annotate run's labels are: per rule and parameters, the labels in each tenth of confidence and those without one. */
export const confidence = researchReadProcedure.input(runConfidenceInput).query(({ ctx, input }) => runConfidence({ ...ctx, input }));
