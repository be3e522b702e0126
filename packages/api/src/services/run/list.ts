import type { Prisma, RunKind, RunStatus } from "@stepwiser/db";
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

export interface RunPageRequest {
  kind?: RunKind;
  status?: RunStatus;
  datasetId?: string;
  limit: number;
  offset: number;
}

/**
 * One page of runs, newest first (ties by id, so pages never overlap), filtered
 * by kind, status and dataset. `nextOffset` is where the next page starts, null
 * on the last page.
 */
export async function listRunPage({ db, input }: ServiceArgs<RunPageRequest>) {
  const where: Prisma.RunWhereInput = {
    ...(input.kind ? { kind: input.kind } : {}),
    ...(input.status ? { status: input.status } : {}),
    ...(input.datasetId ? { datasetId: input.datasetId } : {}),
  };
  const rows = await db.run.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: input.offset,
    take: input.limit + 1,
    select: runSummarySelect,
  });
  const hasMore = rows.length > input.limit;
  return {
    items: rows.slice(0, input.limit).map(toRunSummary),
    limit: input.limit,
    offset: input.offset,
    nextOffset: hasMore ? input.offset + input.limit : null,
  };
}
