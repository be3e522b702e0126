import { z } from "zod";
import { getRun } from "../../services/run/get";
import { researchReadProcedure } from "../../trpc";

export const getRunInput = z.object({ id: z.string().min(1) });

/** One run with its progress, configuration snapshot and summary. */
export const get = researchReadProcedure.input(getRunInput).query(({ ctx, input }) => getRun({ ...ctx, input }));
