import { z } from "zod";
import { runProgress } from "../../services/run/progress";
import { researchReadProcedure } from "../../trpc";

export const runProgressInput = z.object({ id: z.string().min(1), points: z.number().int().min(10).max(1000).default(200) });

/** The run's counters over time, at most `points` of them, with rates derived from consecutive points. */
export const progress = researchReadProcedure.input(runProgressInput).query(({ ctx, input }) => runProgress({ ...ctx, input }));
