import { NotFoundError } from "@stepwiser/core";
import type { ReadServiceArgs } from "../args";

/**
 * An earlier import run as a later one that matched it names it: when it finished
 * and the dataset its records are in (null once that dataset is deleted).
 */
export async function earlierImport({ db, input }: ReadServiceArgs<{ runId: string }>) {
  const run = await db.run.findUnique({
    where: { id: input.runId },
    select: { id: true, kind: true, createdAt: true, finishedAt: true, dataset: { select: { id: true, name: true } } },
  });
  if (!run || run.kind !== "import") throw new NotFoundError(`no import run ${input.runId}`);
  return { runId: run.id, importedAt: run.finishedAt ?? run.createdAt, dataset: run.dataset };
}
