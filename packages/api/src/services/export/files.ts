import { ConflictError, NotFoundError } from "@stepwiser/core";
import type { ReadServiceArgs } from "../args";

/**
 * The files an export run wrote, by name; only complete ones, as `listExports` gives
 * them (a retried export removes and rewrites its files). Read them with `openStoredFile`.
 */
export async function listExportFiles({ db, input }: ReadServiceArgs<{ runId: string }>) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { kind: true } });
  if (!run || run.kind !== "export") throw new NotFoundError(`export run ${input.runId} does not exist`);
  const files = await db.storedFile.findMany({
    where: { producedByRunId: input.runId, completedAt: { not: null } },
    orderBy: { fileName: "asc" },
    select: { id: true, fileName: true, sizeBytes: true, sha256: true },
  });
  return files.map((file) => ({ ...file, sizeBytes: Number(file.sizeBytes) }));
}

/**
 * The files of an export run that has completed; while it is queued or
 * running, or once it failed or was cancelled, a ConflictError says which (a
 * script polls the run until its status is completed, then lists its files).
 */
export async function completedExportFiles({ db, input }: ReadServiceArgs<{ runId: string }>) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { kind: true, status: true, error: true } });
  if (!run || run.kind !== "export") throw new NotFoundError(`export run ${input.runId} does not exist`);
  if (run.status === "queued" || run.status === "running") {
    throw new ConflictError(`export run ${input.runId} is ${run.status}; its files are listed once it has completed (poll the run until its status is completed)`);
  }
  if (run.status !== "completed" && run.status !== "completed_with_failures") throw new ConflictError(`export run ${input.runId} is ${run.status}${run.error ? ` (${run.error})` : ""}; it wrote no files`);
  return listExportFiles({ db, input });
}
