import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "./summary";

/** Runs, newest first, optionally of one dataset, with their progress. */
export async function listRuns({ db, input }: ServiceArgs<{ datasetId?: string; limit: number }>) {
  const runs = await db.run.findMany({
    where: input.datasetId ? { datasetId: input.datasetId } : {},
    orderBy: { createdAt: "desc" },
    take: input.limit,
    select: runSummarySelect,
  });
  return runs.map(toRunSummary);
}
