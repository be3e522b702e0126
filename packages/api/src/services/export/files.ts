import { NotFoundError } from "@stepwiser/core";
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
