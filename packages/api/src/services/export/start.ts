import { submitExport, type ExportSpec } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

/** Queues an export run (its source and options are checked first); its files appear in `exports.list` once the worker has written them. */
export async function startExport({ db, user, input, getQueue }: QueueServiceArgs<{ spec: ExportSpec }>): Promise<{ runId: string }> {
  const run = await submitExport(db, await getQueue(), { spec: input.spec, createdById: user.id });
  return { runId: run.id };
}
