import { NotFoundError } from "@stepwiser/core";
import type { Prisma } from "@stepwiser/db";
import type { ReadServiceArgs } from "../args";
import { runSummarySelect } from "./summary";

/** What a host following a run reads: the list row's fields and the summary. */
const runStateSelect = { ...runSummarySelect, summary: true } satisfies Prisma.RunSelect;

/**
 * One run as stored now: its state, counters, error and summary, and its name, notes
 * and tags as stored (a name is null only on runs stored before runs had names). What a
 * host following a run reads on each poll (the command line's progress and report).
 */
export async function getRunState({ db, input }: ReadServiceArgs<{ id: string }>) {
  const run = await db.run.findUnique({ where: { id: input.id }, select: runStateSelect });
  if (!run) throw new NotFoundError(`run ${input.id} does not exist`);
  return { ...run, promptTokens: Number(run.promptTokens), completionTokens: Number(run.completionTokens), cachedTokens: Number(run.cachedTokens) };
}
