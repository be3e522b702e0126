import { InputError } from "@stepwiser/core";
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
  /** Only these solutions (default: the whole dataset). */
  solutionIds?: string[];
  limit?: number;
  /** Leave out solutions a generate run's prompt filter marked (`metadata.filteredOut`: every sample of their problem agreed). */
  skipFilteredOut?: boolean;
}

/** Segmentation ids of a dataset (or a selection of it) for one method: the plan of chunk-level runs. */
export function planSegmentationIds(db: Db, selection: SegmentationSelection): AsyncGenerator<string> {
  const ids = selection.solutionIds ?? null;
  // SQL, not a Prisma JSON filter: a solution whose metadata has no filteredOut key must count as kept.
  return pagedIds(
    ({ take, cursor }) =>
      db.$queryRaw<{ id: string }[]>`
        SELECT s.id FROM "Segmentation" s JOIN "Solution" t ON t.id = s."solutionId"
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

/** The segmentation methods a dataset's solutions have, with how many solutions each. */
export async function datasetSegmentationMethods(db: Db, datasetId: string): Promise<Array<{ method: string; solutions: number }>> {
  const rows = await db.$queryRaw<Array<{ method: string; solutions: bigint }>>`
    SELECT s.method, count(*) AS solutions FROM "Segmentation" s JOIN "Solution" t ON t.id = s."solutionId"
     WHERE t."datasetId" = ${datasetId} GROUP BY s.method ORDER BY s.method`;
  return rows.map((row) => ({ method: row.method, solutions: Number(row.solutions) }));
}

/**
 * Refuses a chunk-level run whose selection holds no segmentation: the error names the
 * field that selects nothing and, for the method, the methods the dataset has.
 */
export async function refuseEmptySegmentationSelection(db: Db, selection: SegmentationSelection): Promise<void> {
  const first = await planSegmentationIds(db, { ...selection, limit: 1 }).next();
  if (!first.done) return;
  const methods = await datasetSegmentationMethods(db, selection.datasetId);
  const listed = methods.map((m) => `${m.method} (${m.solutions} solution${m.solutions === 1 ? "" : "s"})`).join(", ");
  if (!methods.some((m) => m.method === selection.segmentationMethod)) {
    throw new InputError(
      methods.length === 0
        ? `no solution of dataset ${selection.datasetId} is segmented yet, so segmentation method "${selection.segmentationMethod}" selects nothing: segment the dataset first`
        : `no solution of dataset ${selection.datasetId} is segmented by "${selection.segmentationMethod}", so the run would judge nothing; the dataset's segmentation methods: ${listed}`,
      { field: "segmentationMethod" },
    );
  }
  if (selection.solutionIds) {
    throw new InputError(`none of the ${selection.solutionIds.length} solutionIds is a solution of dataset ${selection.datasetId} segmented by "${selection.segmentationMethod}"`, { field: "solutionIds" });
  }
  throw new InputError(
    `every solution of dataset ${selection.datasetId} segmented by "${selection.segmentationMethod}" was filtered out by its generate run (all samples of its problem agreed), so the run would annotate nothing; set skipFilteredOut false to include them`,
    { field: "skipFilteredOut" },
  );
}

/** Refuses a problem-level run whose dataset has no problem it could plan (with a reference answer, when it needs one). */
export async function refuseEmptyProblemSelection(
  db: Db,
  selection: { datasetId: string; withReference?: boolean; problemIds?: string[]; /** An empty reference counts as none (the generate run's rule). */ nonEmptyReference?: boolean },
): Promise<void> {
  const reference = selection.nonEmptyReference ? { NOT: [{ referenceAnswer: null }, { referenceAnswer: "" }] } : { referenceAnswer: { not: null } };
  const where = {
    datasetId: selection.datasetId,
    ...(selection.withReference ? reference : {}),
    ...(selection.problemIds ? { id: { in: selection.problemIds } } : {}),
  };
  if (await db.problem.findFirst({ where, select: { id: true } })) return;
  if (selection.problemIds) throw new InputError(`none of the ${selection.problemIds.length} problemIds is a problem of dataset ${selection.datasetId}${selection.withReference ? " with a reference answer" : ""}`, { field: "problemIds" });
  const problems = await db.problem.count({ where: { datasetId: selection.datasetId } });
  throw new InputError(
    problems === 0 ? `dataset ${selection.datasetId} has no problems, so the run would do nothing` : `none of the ${problems} problems of dataset ${selection.datasetId} has a reference answer, which the run needs to grade its solutions`,
    { field: "datasetId" },
  );
}
