import { submitImport, type ImportOptions } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

/** Queues the import of an uploaded file; the worker reads it, so the request returns at once. */
export async function startImport({ db, user, input, getQueue }: QueueServiceArgs<{ fileId: string; options: ImportOptions }>): Promise<{ runId: string }> {
  const run = await submitImport(db, await getQueue(), { fileId: input.fileId, options: input.options, createdById: user.id });
  return { runId: run.id };
}
