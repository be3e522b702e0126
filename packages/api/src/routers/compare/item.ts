import { z } from "zod";
import { compareItem } from "../../services/compare/item";
import { researchReadProcedure } from "../../trpc";

export const compareItemInput = z.object({
  solutionId: z.string().min(1),
  runIds: z.array(z.string().min(1)).min(1).max(8),
});

/** One solution as the compared runs saw it: its chunks with each run's judge samples and majority vote side by side, and each run's prediction. */
export const item = researchReadProcedure.input(compareItemInput).query(({ ctx, input }) => compareItem({ ...ctx, input }));
