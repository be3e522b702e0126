import { z } from "zod";
import { inspectTrajectory } from "../../services/trajectory/inspect";
import { researchReadProcedure } from "../../trpc";

export const inspectTrajectoryInput = z.object({ id: z.string().min(1) });

/** A solution with everything the inspector shows beside its chunks: every annotate run's Q-values and every judge sample, grouped by run. */
export const inspect = researchReadProcedure.input(inspectTrajectoryInput).query(({ ctx, input }) => inspectTrajectory({ ...ctx, input }));
