import { z } from "zod";
import { trajectoryFilterSchema } from "../../services/trajectory/filters";
import { trajectoryNeighbors } from "../../services/trajectory/neighbors";
import { researchReadProcedure } from "../../trpc";

export const trajectoryNeighborsInput = trajectoryFilterSchema.and(z.object({ id: z.string().min(1) }));

/** The solutions just before and after one in a filtered, sorted list (keyset lookups); none when it is outside the list. */
export const neighbors = researchReadProcedure.input(trajectoryNeighborsInput).query(({ ctx, input }) => trajectoryNeighbors({ ...ctx, input }));
