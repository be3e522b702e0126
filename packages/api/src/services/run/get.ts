import { NotFoundError } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "./summary";

/** One run with its progress, configuration snapshot and summary. */
export async function getRun({ db, input }: ServiceArgs<{ id: string }>) {
  const run = await db.run.findUnique({ where: { id: input.id }, select: { ...runSummarySelect, summary: true } });
  if (!run) throw new NotFoundError(`run ${input.id} does not exist`);
  return { ...toRunSummary(run), config: run.config, summary: run.summary };
}
