import { InputError } from "@stepwiser/core";
import { submitImport, type ImportOptions } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

/** Queues the import of an uploaded file; the worker reads it, so the request returns at once. */
export async function startImport({ db, user, input, getQueue }: QueueServiceArgs<{ fileId: string; options: ImportOptions }>): Promise<{ runId: string }> {
  const run = await submitImport(db, await getQueue(), { fileId: input.fileId, options: input.options, createdById: user.id });
  return { runId: run.id };
}

/**
 * Queues one import run per uploaded file, with the same options, as the
 * command line does for several files. Every file is checked first (a finished
 * upload, by its place in the list: field `fileIds.N`), so a bad id queues
 * nothing; the runs come back in the order of the files.
 */
export async function startImports({ db, user, input, getQueue }: QueueServiceArgs<{ fileIds: string[]; options: ImportOptions }>): Promise<{ runIds: string[] }> {
  if (input.fileIds.length > 1 && input.options.datasetName) {
    throw new InputError("a new dataset's name applies to a single file; import several files into one dataset by its id (datasetId) after the first", { field: "datasetName" });
  }
  const files = await db.storedFile.findMany({ where: { id: { in: input.fileIds } }, select: { id: true, fileName: true, purpose: true, completedAt: true } });
  for (const [i, fileId] of input.fileIds.entries()) {
    const file = files.find((f) => f.id === fileId);
    if (!file || file.purpose !== "upload") throw new InputError(`no uploaded file ${fileId}`, { field: `fileIds.${i}` });
    if (!file.completedAt) throw new InputError(`the upload of ${file.fileName} has not finished`, { field: `fileIds.${i}` });
    if (input.fileIds.indexOf(fileId) !== i) throw new InputError(`file ${fileId} is listed twice`, { field: `fileIds.${i}` });
  }
  const runIds: string[] = [];
  for (const fileId of input.fileIds) runIds.push((await startImport({ db, user, getQueue, input: { fileId, options: input.options } })).runId);
  return { runIds };
}
