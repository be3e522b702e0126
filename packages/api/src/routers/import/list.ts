import { z } from "zod";
import { listImports } from "../../services/import/list";
import { researchReadProcedure } from "../../trpc";

export const listImportsInput = z.object({ limit: z.number().int().min(1).max(200).default(20) }).default({ limit: 20 });

/** Recent import runs, newest first, with the file they read and the dataset they wrote to. */
export const list = researchReadProcedure.input(listImportsInput).query(({ ctx, input }) => listImports({ ...ctx, input }));
