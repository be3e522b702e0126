import { NotFoundError } from "@stepwiser/core";
import { Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { listOrder, plannedSolutionsFrom, type SolutionFilter } from "./filters";

/**
 * Counting stops here: past it a list says "1,000+" and pages on by "is there
 * more", so a broad filter costs a page, not a scan of the dataset.
 */
export const COUNT_CAP = 1_000;

interface SolutionListRow {
  id: string;
  externalId: string;
  subset: string | null;
  generator: string;
  finalAnswerCorrect: boolean | null;
  sourceFirstErrorIndex: number | null;
  problemId: string;
  qMin: number | null;
  annotateFirstNegative: number | null;
  labelsDisagree: boolean | null;
  judgeFirstNegative: number | null;
  /** Chunks of the chosen run's segmentation; without a run, of the solution's first segmentation (the one the inspector opens on). Null where unknown. */
  chunkCount: number | null;
  /** The solution's lowest label confidence under the filter's `confidenceRule`; null without one, or where no label has a confidence. */
  lowestConfidence: number | null;
}

/**
 * The solution's chunks on its first segmentation, the one the inspector opens
 * on (null without any): a scalar subquery, so it is read for the page's rows
 * alone, counting on the (segmentation, index) index.
 */
const FIRST_SEGMENTATION_CHUNK_COUNT = Prisma.sql`(
  SELECT (SELECT count(*)::int FROM "Chunk" c WHERE c."segmentationId" = s.id)
  FROM "Segmentation" s WHERE s."solutionId" = t.id
  ORDER BY s."createdAt", s.id
  LIMIT 1)`;

/**
 * One page of a dataset's solutions, filtered and sorted in the database, with
 * the chosen runs' per-solution stats. The page reads narrow columns only; the
 * problem previews are fetched for its rows alone.
 */
export async function listSolutions({ db, input }: ServiceArgs<SolutionFilter & { page: number; pageSize: number }>) {
  const from = await plannedSolutionsFrom(db, input);
  // A run's stats count its own segmentation's chunks; without a run, the solution's own segmentation tells.
  const chunkCount = input.annotateRunId || input.judgeRunId ? Prisma.sql`COALESCE(a."chunkCount", j."chunkCount")` : FIRST_SEGMENTATION_CHUNK_COUNT;
  const [counted, rows] = await Promise.all([
    db.$queryRaw<{ total: number }[]>(Prisma.sql`SELECT count(*)::int AS total FROM (SELECT 1 ${from} LIMIT ${COUNT_CAP + 1}) capped`),
    db.$queryRaw<SolutionListRow[]>(Prisma.sql`
      SELECT t.id, t."externalId", t.subset, t.generator, t."finalAnswerCorrect", t."sourceFirstErrorIndex", t."problemId",
             a."qMin", a."firstNegative" AS "annotateFirstNegative", a."labelsDisagree",
             j."firstNegative" AS "judgeFirstNegative", ${chunkCount} AS "chunkCount",
             lc."lowestConfidence"
      ${from}
      ${listOrder(input)}
      LIMIT ${input.pageSize + 1} OFFSET ${(input.page - 1) * input.pageSize}`),
  ]);
  const hasMore = rows.length > input.pageSize;
  const pageRows = rows.slice(0, input.pageSize);
  const problemIds = [...new Set(pageRows.map((r) => r.problemId))];
  const previews = problemIds.length
    ? await db.$queryRaw<{ id: string; preview: string }[]>(Prisma.sql`SELECT id, left(text, 200) AS preview FROM "Problem" WHERE id IN (${Prisma.join(problemIds)})`)
    : [];
  const previewOf = new Map(previews.map((p) => [p.id, p.preview]));
  const counted0 = counted[0]?.total ?? 0;
  const totalIsExact = counted0 <= COUNT_CAP;
  const total = Math.min(counted0, COUNT_CAP);
  return {
    total,
    totalIsExact,
    hasMore,
    page: input.page,
    pageSize: input.pageSize,
    pageCount: totalIsExact ? Math.max(1, Math.ceil(total / input.pageSize)) : null,
    items: pageRows.map(({ problemId, ...row }) => ({ ...row, problemPreview: previewOf.get(problemId) ?? "" })),
  };
}

/** `listSolutions` for a dataset that must exist: an unknown dataset is NOT_FOUND rather than an empty page. */
export async function listDatasetSolutions(args: ServiceArgs<SolutionFilter & { page: number; pageSize: number }>) {
  const dataset = await args.db.dataset.findUnique({ where: { id: args.input.datasetId }, select: { id: true } });
  if (!dataset) throw new NotFoundError(`dataset ${args.input.datasetId} does not exist`);
  return listSolutions(args);
}
