import { NotFoundError } from "@stepwiser/core";
import { tryReadRun } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "./summary";

/**
 * One run with its progress, its configuration snapshot and summary as stored,
 * and both as its kind reads them (`read`, typed by kind; null when the config does not read).
 */
export async function getRun({ db, input }: ServiceArgs<{ id: string }>) {
  const run = await db.run.findUnique({ where: { id: input.id }, select: { ...runSummarySelect, summary: true } });
  if (!run) throw new NotFoundError(`run ${input.id} does not exist`);
  return { ...toRunSummary(run), config: run.config, summary: run.summary, read: tryReadRun(run) };
}
