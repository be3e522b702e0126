import { z } from "zod";
import { getTrajectory } from "../../services/trajectory/get";
import { researchReadProcedure } from "../../trpc";

export const getTrajectoryInput = z.object({ id: z.string().min(1) });

/** A solution with its problem and every segmentation's chunks. */
export const get = researchReadProcedure.input(getTrajectoryInput).query(({ ctx, input }) => getTrajectory({ ...ctx, input }));
