import { z } from "zod";
import { solutionFilterSchema } from "../../services/solution/filters";
import { solutionNeighbors } from "../../services/solution/neighbors";
import { researchReadProcedure } from "../../trpc";

export const solutionNeighborsInput = solutionFilterSchema.and(z.object({ id: z.string().min(1) }));

/** The solutions just before and after one in a filtered, sorted list (keyset lookups); none when it is outside the list. */
export const neighbors = researchReadProcedure.input(solutionNeighborsInput).query(({ ctx, input }) => solutionNeighbors({ ...ctx, input }));
