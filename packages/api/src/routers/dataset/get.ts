import { z } from "zod";
import { getDataset } from "../../services/dataset/get";
import { researchReadProcedure } from "../../trpc";

export const getDatasetInput = z.object({ id: z.string().min(1) });

/** One dataset with its solution counts per subset and generator. */
export const get = researchReadProcedure.input(getDatasetInput).query(({ ctx, input }) => getDataset({ ...ctx, input }));
