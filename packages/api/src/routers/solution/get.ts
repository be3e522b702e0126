import { z } from "zod";
import { getSolution } from "../../services/solution/get";
import { researchReadProcedure } from "../../trpc";

export const getSolutionInput = z.object({ id: z.string().min(1) });

/** A solution with its problem and every segmentation's chunks. */
export const get = researchReadProcedure.input(getSolutionInput).query(({ ctx, input }) => getSolution({ ...ctx, input }));
