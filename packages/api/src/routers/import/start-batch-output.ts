import { submitBatchOutputImport } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const startBatchOutputInput = z.object({
  /** The uploaded `vllm run-batch` output (`POST /api/uploads`). */
  fileId: z.string().min(1),
  /** The offline run whose exported requests the file answers. */
  runId: z.string().min(1),
});

/** Queues the import of a batch output; once its samples are stored the worker queues the offline run itself. */
export const startBatchOutput = researchManageProcedure.input(startBatchOutputInput).mutation(async ({ ctx, input }) => {
  const run = await submitBatchOutputImport(ctx.db, await ctx.getQueue(), { fileId: input.fileId, runId: input.runId, createdById: ctx.user.id });
  return { runId: run.id };
});
