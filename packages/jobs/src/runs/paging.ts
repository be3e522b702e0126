import type { Db } from "@stepwiser/db";

/**
 * Streams the ids a query yields, page by page with a cursor, up to `limit`:
 * how run plans walk datasets of any size without loading them.
 */
export async function* pagedIds(
  fetchPage: (page: { take: number; cursor?: { id: string }; skip?: number }) => Promise<Array<{ id: string }>>,
  options: { limit?: number; pageSize?: number } = {},
): AsyncGenerator<string> {
  const pageSize = options.pageSize ?? 500;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let cursor: string | undefined;
  while (remaining > 0) {
    const take = Math.min(pageSize, remaining);
    const page = await fetchPage({ take, ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) });
    for (const row of page) yield row.id;
    remaining -= page.length;
    if (page.length < take) return;
    cursor = page[page.length - 1]!.id;
  }
}

export interface SegmentationSelection {
  datasetId: string;
  segmentationMethod: string;
  /** Only these trajectories (default: the whole dataset). */
  trajectoryIds?: string[];
  limit?: number;
  /** Leave out solutions a generate run's prompt filter marked (`metadata.filteredOut`: every sample of their problem agreed). */
  skipFilteredOut?: boolean;
}

/** Segmentation ids of a dataset (or a selection of it) for one method: the plan of chunk-level runs. */
export function planSegmentationIds(db: Db, selection: SegmentationSelection): AsyncGenerator<string> {
  const ids = selection.trajectoryIds ?? null;
  // SQL, not a Prisma JSON filter: a solution whose metadata has no filteredOut key must count as kept.
  return pagedIds(
    ({ take, cursor }) =>
      db.$queryRaw<{ id: string }[]>`
        SELECT s.id FROM "Segmentation" s JOIN "Trajectory" t ON t.id = s."trajectoryId"
         WHERE s.method = ${selection.segmentationMethod} AND t."datasetId" = ${selection.datasetId}
           AND (${ids === null}::boolean OR t.id = ANY(${ids ?? []}::text[]))
           AND (NOT ${selection.skipFilteredOut ?? false}::boolean OR coalesce(t.metadata->>'filteredOut', 'false') <> 'true')
           AND (${cursor === undefined}::boolean OR s.id > ${cursor?.id ?? ""})
         ORDER BY s.id
         LIMIT ${take}`,
    { limit: selection.limit },
  );
}

/** Problem ids of a dataset, optionally only those with a reference answer: the plan of problem-level runs. */
export function planProblemIds(db: Db, selection: { datasetId: string; limit?: number; withReference?: boolean }): AsyncGenerator<string> {
  return pagedIds(
    (page) =>
      db.problem.findMany({
        where: { datasetId: selection.datasetId, ...(selection.withReference ? { referenceAnswer: { not: null } } : {}) },
        orderBy: { id: "asc" },
        select: { id: true },
        ...page,
      }),
    { limit: selection.limit },
  );
}
