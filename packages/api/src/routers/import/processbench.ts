import { submitProcessBenchImport } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

/** The inline form sends the whole file in one request body; larger files go through the upload route. */
const MAX_INLINE_IMPORT_BYTES = 256 * 1024 * 1024;

export const importProcessBenchInput = z.object({
  fileName: z.string().min(1).max(255),
  /** The file's text (ProcessBench JSON). */
  content: z.string().min(1).max(MAX_INLINE_IMPORT_BYTES),
  datasetName: z.string().trim().max(200).optional(),
});

export const processbench = researchManageProcedure.input(importProcessBenchInput).mutation(async ({ ctx, input }) => {
  const run = await submitProcessBenchImport(ctx.db, await ctx.getQueue(), {
    fileName: input.fileName,
    content: Buffer.from(input.content, "utf8"),
    datasetName: input.datasetName,
    createdById: ctx.user.id,
  });
  return { runId: run.id };
});
