import { z } from "zod";
import { solutionFilterSchema } from "../../services/solution/filters";
import { listSolutions } from "../../services/solution/list";
import { researchReadProcedure } from "../../trpc";

export const listSolutionsInput = solutionFilterSchema.and(
  z.object({
    page: z.number().int().min(1).default(1),
    pageSize: z.number().int().min(1).max(500).default(50),
  }),
);

/** One page of a dataset's solutions, filtered and sorted in the database, with the chosen runs' per-solution stats. */
export const list = researchReadProcedure.input(listSolutionsInput).query(({ ctx, input }) => listSolutions({ ...ctx, input }));
