import { submitBatchOutputImport } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

/** Queues the import of a batch output; once its samples are stored the worker queues the offline run itself. */
export async function startBatchOutputImport({ db, user, input, getQueue }: QueueServiceArgs<{ fileId: string; runId: string }>): Promise<{ runId: string }> {
  const run = await submitBatchOutputImport(db, await getQueue(), { fileId: input.fileId, runId: input.runId, createdById: user.id });
  return { runId: run.id };
}
