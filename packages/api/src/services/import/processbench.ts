import { submitProcessBenchImport } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

/** Queues the import of a ProcessBench file sent inline (its text in the request body); larger files go through the upload route. */
export async function importProcessBenchText({ db, user, input, getQueue }: QueueServiceArgs<{ fileName: string; content: string; datasetName?: string }>): Promise<{ runId: string }> {
  const run = await submitProcessBenchImport(db, await getQueue(), {
    fileName: input.fileName,
    content: Buffer.from(input.content, "utf8"),
    datasetName: input.datasetName,
    createdById: user.id,
  });
  return { runId: run.id };
}
