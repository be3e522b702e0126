import { z } from "zod";
import { trajectoryFilterSchema } from "../../services/trajectory/filters";
import { listTrajectories } from "../../services/trajectory/list";
import { researchReadProcedure } from "../../trpc";

export const listTrajectoriesInput = trajectoryFilterSchema.and(
  z.object({
    page: z.number().int().min(1).default(1),
    pageSize: z.number().int().min(1).max(500).default(50),
  }),
);

/** One page of a dataset's solutions, filtered and sorted in the database, with the chosen runs' per-solution stats. */
export const list = researchReadProcedure.input(listTrajectoriesInput).query(({ ctx, input }) => listTrajectories({ ...ctx, input }));
