import { importOptionsSchema, submitImport } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const startImportInput = z.object({
  /** A finished upload (`POST /api/uploads`). */
  fileId: z.string().min(1),
  options: importOptionsSchema,
});

/** Queues the import of an uploaded file; the worker reads it, so the request returns at once. */
export const start = researchManageProcedure.input(startImportInput).mutation(async ({ ctx, input }) => {
  const run = await submitImport(ctx.db, await ctx.getQueue(), { fileId: input.fileId, options: input.options, createdById: ctx.user.id });
  return { runId: run.id };
});
