import { z } from "zod";
import { startBatchOutputImport } from "../../services/import/start-batch-output";
import { researchManageProcedure } from "../../trpc";

export const startBatchOutputInput = z.object({
  /** The uploaded `vllm run-batch` output (`POST /api/uploads`). */
  fileId: z.string().min(1),
  /** The offline run whose exported requests the file answers. */
  runId: z.string().min(1),
});

/** Queues the import of a batch output; once its samples are stored the worker queues the offline run itself. */
export const startBatchOutput = researchManageProcedure.input(startBatchOutputInput).mutation(({ ctx, input }) => startBatchOutputImport({ ...ctx, input }));
