import { importOptionsSchema } from "@stepwiser/jobs";
import { z } from "zod";
import { startImport } from "../../services/import/start";
import { researchManageProcedure } from "../../trpc";

export const startImportInput = z.object({
  /** A finished upload (`POST /api/uploads`). */
  fileId: z.string().min(1),
  options: importOptionsSchema,
});

/** Queues the import of an uploaded file; the worker reads it, so the request returns at once. */
export const start = researchManageProcedure.input(startImportInput).mutation(({ ctx, input }) => startImport({ ...ctx, input }));
