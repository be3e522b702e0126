import { z } from "zod";
import { listExports } from "../../services/export/list";
import { researchReadProcedure } from "../../trpc";

export const listExportsInput = z
  .object({
    /** Only exports that read this run. */
    sourceRunId: z.string().min(1).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .default({ limit: 50 });

/** Export runs, newest first, with what they read and the files they wrote (downloads: `GET /api/files/{id}`). */
export const list = researchReadProcedure.input(listExportsInput).query(({ ctx, input }) => listExports({ ...ctx, input }));
