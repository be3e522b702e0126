import { z } from "zod";
import { listRuns } from "../../services/run/list";
import { researchReadProcedure } from "../../trpc";

export const listRunsInput = z.object({
  datasetId: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

/** Runs, newest first, optionally of one dataset, with their progress. */
export const list = researchReadProcedure.input(listRunsInput).query(({ ctx, input }) => listRuns({ ...ctx, input }));
