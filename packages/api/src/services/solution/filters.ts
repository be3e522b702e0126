import { STORED_LABEL_RULE_VALUES } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import { z } from "zod";

export const SOLUTION_SORTS = ["position", "externalId", "generator", "sourceFirstError", "qMin", "annotateFirstNegative", "judgeFirstNegative", "chunkCount", "lowestConfidence"] as const;
export type SolutionSort = (typeof SOLUTION_SORTS)[number];

/** The fields of a list filter, without the checks that tie them together (see `solutionFilterSchema`). */
export const solutionFilterFields = z.object({
  datasetId: z.string().min(1),
  subset: z.string().min(1).optional(),
  generator: z.string().min(1).optional(),
  /** The final answer was graded correct (true) or wrong (false). */
  correct: z.boolean().optional(),
  /** true: the source marks a first error; false: the source says error-free. */
  hasError: z.boolean().optional(),
  /** Words (prefix-matched) in the problem or the solution, or an exact solution id. */
  search: z.string().trim().max(200).optional(),
  /** Annotate run whose Q-values and labels the Q and disagreement filters read. */
  annotateRunId: z.string().min(1).optional(),
  /** Bounds on the solution's lowest chunk Q-value under the annotate run. */
  qMin: z.number().min(0).max(1).optional(),
  qMax: z.number().min(0).max(1).optional(),
  /** A label rule of the annotate run, as its labels are stored: the lowest-confidence filter, column and sort read each solution's lowest label confidence under it. */
  confidenceRule: z.object({ rule: z.enum(STORED_LABEL_RULE_VALUES), paramsKey: z.string().min(1) }).optional(),
  /** Keep solutions whose lowest label confidence under `confidenceRule` is at most this (solutions without one are left out). */
  maxConfidence: z.number().min(0).max(1).optional(),
  /** rules: the annotate run's label rules disagree on some chunk. judge: the judge's first Negative chunk is not the annotate run's. */
  disagreement: z.enum(["rules", "judge"]).optional(),
  /** Judge run whose majority verdicts the verdict filter reads. */
  judgeRunId: z.string().min(1).optional(),
  /** flagged: some chunk voted Negative. clean: every chunk voted Positive. */
  judgeVerdict: z.enum(["flagged", "clean"]).optional(),
  sort: z.enum(SOLUTION_SORTS).default("position"),
  order: z.enum(["asc", "desc"]).default("asc"),
});

/** Filters on a run's stats need the run; checked wherever a filter is accepted (the list, a queue's selection). */
export function checkSolutionFilter(filter: Omit<z.output<typeof solutionFilterFields>, "datasetId">, ctx: z.RefinementCtx): void {
  const needs = (field: keyof typeof filter, run: "annotateRunId" | "judgeRunId" | "confidenceRule") => {
    if (filter[field] !== undefined && !filter[run]) ctx.addIssue({ code: "custom", path: [field], message: `${field} needs ${run}` });
  };
  needs("qMin", "annotateRunId");
  needs("qMax", "annotateRunId");
  needs("confidenceRule", "annotateRunId");
  needs("maxConfidence", "confidenceRule");
  if (filter.sort === "lowestConfidence") needs("sort", "confidenceRule");
  needs("judgeVerdict", "judgeRunId");
  if (filter.disagreement) needs("disagreement", "annotateRunId");
  if (filter.disagreement === "judge") needs("disagreement", "judgeRunId");
  if (filter.sort === "qMin" || filter.sort === "annotateFirstNegative") needs("sort", "annotateRunId");
  if (filter.sort === "judgeFirstNegative") needs("sort", "judgeRunId");
  if (filter.sort === "chunkCount" && !filter.annotateRunId && !filter.judgeRunId) {
    ctx.addIssue({ code: "custom", path: ["sort"], message: "sorting by chunk count needs annotateRunId or judgeRunId" });
  }
  if (filter.qMin !== undefined && filter.qMax !== undefined && filter.qMin > filter.qMax) {
    ctx.addIssue({ code: "custom", path: ["qMax"], message: "qMax must not be below qMin" });
  }
}

/**
 * Which solutions of a dataset a list shows, and in what order. The same
 * object drives the list page and the inspector's next/previous, so both walk
 * the same sequence.
 */
export const solutionFilterSchema = solutionFilterFields.superRefine(checkSolutionFilter);
export type SolutionFilter = z.output<typeof solutionFilterSchema>;

/** Prefix query over the words of the search text; null when it has no word. */
export function toPrefixTsQuery(search: string): string | null {
  const words = search.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length ? words.slice(0, 12).map((w) => `${w}:*`).join(" & ") : null;
}

/** One column of a list's ordering, with the SQL type its value is cast back to in keyset comparisons. */
interface SortColumn {
  expression: Prisma.Sql;
  type: Prisma.Sql;
}

export interface ListOrdering {
  /** Sort columns, the last ones breaking ties, so the order is total. */
  columns: SortColumn[];
  /** Rows without the sort column are left out of a list sorted by it (an unannotated solution has no lowest Q). */
  condition: Prisma.Sql | null;
}

const column = (expression: Prisma.Sql, type: Prisma.Sql): SortColumn => ({ expression, type });
const INT = Prisma.sql`int`;
const TEXT = Prisma.sql`text`;
const FLOAT = Prisma.sql`float8`;
const FILE_ORDER = [column(Prisma.sql`t."createdAt"`, Prisma.sql`timestamp(3)`), column(Prisma.sql`t.id`, TEXT)];

/**
 * The list's total order. Every ordering is an index's order, so a page and a
 * next/previous step are index range scans whatever the list's length: file
 * order on (dataset, created, id), run stats on (run, column, solution).
 */
export function listOrdering(filter: SolutionFilter): ListOrdering {
  const byStat = (alias: "a" | "j" | "lc", name: "qMin" | "firstNegative" | "chunkCount" | "lowestConfidence", type: Prisma.Sql): ListOrdering => {
    const stat = Prisma.raw(`${alias}."${name}"`);
    return { columns: [column(stat, type), column(Prisma.raw(`${alias}."solutionId"`), TEXT)], condition: Prisma.sql`${stat} IS NOT NULL` };
  };
  switch (filter.sort) {
    case "position":
      return { columns: FILE_ORDER, condition: null };
    case "externalId":
      return { columns: [column(Prisma.sql`t."externalId"`, TEXT), column(Prisma.sql`t.id`, TEXT)], condition: null };
    case "generator":
      return { columns: [column(Prisma.sql`t."generator"`, TEXT), ...FILE_ORDER], condition: null };
    case "sourceFirstError":
      return { columns: [column(Prisma.sql`t."sourceFirstErrorIndex"`, INT), ...FILE_ORDER], condition: Prisma.sql`t."sourceFirstErrorIndex" IS NOT NULL` };
    case "qMin":
      return byStat("a", "qMin", FLOAT);
    case "annotateFirstNegative":
      return byStat("a", "firstNegative", INT);
    case "judgeFirstNegative":
      return byStat("j", "firstNegative", INT);
    case "chunkCount":
      return byStat(filter.annotateRunId ? "a" : "j", "chunkCount", INT);
    case "lowestConfidence":
      return byStat("lc", "lowestConfidence", FLOAT);
  }
}

/**
 * The chosen runs' per-solution stats as `a` (annotate) and `j` (judge), and
 * the solution's lowest label confidence under the chosen rule of the annotate
 * run as `lc`: LEFT JOINs on primary keys, so a solution a run has not reached
 * yet still lists, with empty columns.
 */
export function statJoins(filter: Pick<SolutionFilter, "annotateRunId" | "judgeRunId" | "confidenceRule" | "search">): Prisma.Sql {
  // A text search keeps the matching solutions only, typically a few in a thousand: each one's stats are then
  // probed by primary key. Left to a plain join, the planner hashes the matches against a scan of every stat
  // row of the run, whose cost grows with the dataset rather than with the matches (DECISIONS).
  const statJoin = (alias: "a" | "j", runId: string) =>
    filter.search
      ? Prisma.sql`LEFT JOIN LATERAL (SELECT * FROM "SolutionRunStat" rs WHERE rs."runId" = ${runId} AND rs."solutionId" = t.id LIMIT 1) ${Prisma.raw(alias)} ON true`
      : Prisma.sql`LEFT JOIN "SolutionRunStat" ${Prisma.raw(alias)} ON ${Prisma.raw(alias)}."runId" = ${runId} AND ${Prisma.raw(alias)}."solutionId" = t.id`;
  const annotateJoin = filter.annotateRunId
    ? statJoin("a", filter.annotateRunId)
    : Prisma.sql`LEFT JOIN (SELECT NULL::float8 AS "qMin", NULL::int AS "firstNegative", NULL::boolean AS "labelsDisagree", NULL::int AS "chunkCount") a ON false`;
  const judgeJoin = filter.judgeRunId
    ? statJoin("j", filter.judgeRunId)
    : Prisma.sql`LEFT JOIN (SELECT NULL::int AS "firstNegative", NULL::int AS "chunkCount") j ON false`;
  const rule = filter.confidenceRule;
  const confidenceJoin =
    filter.annotateRunId && rule
      ? Prisma.sql`LEFT JOIN "SolutionLabelConfidence" lc ON lc."runId" = ${filter.annotateRunId} AND lc."solutionId" = t.id
                     AND lc.rule = ${rule.rule}::"LabelRule" AND lc."paramsKey" = ${rule.paramsKey}`
      : Prisma.sql`LEFT JOIN (SELECT NULL::float8 AS "lowestConfidence", NULL::text AS "solutionId") lc ON false`;
  return Prisma.sql`${annotateJoin} ${judgeJoin} ${confidenceJoin}`;
}

/** The OR of a text search over solutions `alias`: its words, its problem's words (prefix match), its exact id. */
function searchCondition(alias: "s" | "t", datasetId: string, search: string): Prisma.Sql {
  const at = (column: string) => Prisma.raw(`${alias}."${column}"`);
  const tsQuery = toPrefixTsQuery(search);
  const arms: Prisma.Sql[] = [];
  if (tsQuery) {
    arms.push(Prisma.sql`${at("searchVector")} @@ to_tsquery('simple', ${tsQuery})`);
    arms.push(Prisma.sql`${at("problemId")} = ANY (ARRAY(
      SELECT p.id FROM "Problem" p WHERE p."datasetId" = ${datasetId} AND p."searchVector" @@ to_tsquery('simple', ${tsQuery})))`);
  }
  arms.push(Prisma.sql`${at("externalId")} = ${search}`);
  return Prisma.sql`(${Prisma.join(arms, " OR ")})`;
}

/**
 * Every solution of the dataset a text search matches, as a subquery. Each arm
 * of the OR has its own index (words, problem, external id), so PostgreSQL ORs
 * the three bitmaps and reads each matching solution's page once. `OFFSET 0`
 * keeps the planner from walking the list's order instead and testing every
 * solution on the way: it costs that walk as cheap, but each test unpacks the
 * solution's stored word list, so for a word in a few solutions per thousand
 * the walk is many times slower than reading the matches.
 */
function searchMatches(datasetId: string, search: string): Prisma.Sql {
  return Prisma.sql`(SELECT * FROM "Solution" s WHERE s."datasetId" = ${datasetId} AND ${searchCondition("s", datasetId, search)} OFFSET 0)`;
}

/** Past this many matches a search walks the list's order (see `TextSearchPlan`). */
export const SEARCH_MATCHES_CAP = 10_000;

/**
 * How a filtered list finds the solutions its text search matches. `matches`:
 * read every match, then filter, order and page them; its cost grows with the
 * matches. `walk`: walk the list's order and test each solution until the page
 * is full; its cost grows with the page divided by the share of solutions that
 * match. A search matching at most `SEARCH_MATCHES_CAP` solutions reads its
 * matches; one matching more (a common word) walks (DECISIONS).
 */
export type TextSearchPlan = "matches" | "walk";

/** The plan for the filter's text search (null without one), from a count of its matches capped past `SEARCH_MATCHES_CAP`. */
export async function textSearchPlan(db: Db, filter: Pick<SolutionFilter, "datasetId" | "search">): Promise<TextSearchPlan | null> {
  if (!filter.search) return null;
  const rows = await db.$queryRaw<{ n: number }[]>(
    Prisma.sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${searchMatches(filter.datasetId, filter.search)} m LIMIT ${SEARCH_MATCHES_CAP + 1}) capped`,
  );
  return (rows[0]?.n ?? 0) > SEARCH_MATCHES_CAP ? "walk" : "matches";
}

/** FROM and WHERE of the filtered list with its text search planned (`textSearchPlan`, one capped count when it searches). */
export async function plannedSolutionsFrom(db: Db, filter: SolutionFilter): Promise<Prisma.Sql> {
  return filteredSolutionsFrom(filter, await textSearchPlan(db, filter));
}

/** FROM and WHERE of the filtered list: solutions `t` with the stats of `statJoins`; a text search is found as `plan` says (`textSearchPlan`). */
export function filteredSolutionsFrom(filter: SolutionFilter, plan: TextSearchPlan | null): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`t."datasetId" = ${filter.datasetId}`];
  if (filter.subset) conditions.push(Prisma.sql`t."subset" = ${filter.subset}`);
  if (filter.generator) conditions.push(Prisma.sql`t."generator" = ${filter.generator}`);
  if (filter.correct !== undefined) conditions.push(Prisma.sql`t."finalAnswerCorrect" = ${filter.correct}`);
  if (filter.hasError === true) conditions.push(Prisma.sql`t."sourceFirstErrorIndex" >= 0`);
  if (filter.hasError === false) conditions.push(Prisma.sql`t."sourceFirstErrorIndex" = -1`);
  const solutions = filter.search && plan !== "walk" ? searchMatches(filter.datasetId, filter.search) : Prisma.sql`"Solution"`;
  if (filter.search && plan === "walk") conditions.push(searchCondition("t", filter.datasetId, filter.search));
  if (filter.annotateRunId) {
    if (filter.qMin !== undefined) conditions.push(Prisma.sql`a."qMin" >= ${filter.qMin}`);
    if (filter.qMax !== undefined) conditions.push(Prisma.sql`a."qMin" <= ${filter.qMax}`);
    if (filter.disagreement === "rules") conditions.push(Prisma.sql`a."labelsDisagree"`);
    if (filter.confidenceRule && filter.maxConfidence !== undefined) conditions.push(Prisma.sql`lc."lowestConfidence" <= ${filter.maxConfidence}`);
  }
  if (filter.judgeRunId) {
    if (filter.judgeVerdict === "flagged") conditions.push(Prisma.sql`j."firstNegative" >= 0`);
    if (filter.judgeVerdict === "clean") conditions.push(Prisma.sql`j."firstNegative" = -1`);
  }
  if (filter.disagreement === "judge" && filter.annotateRunId && filter.judgeRunId) {
    conditions.push(Prisma.sql`a."firstNegative" <> j."firstNegative"`);
  }
  const { condition } = listOrdering(filter);
  if (condition) conditions.push(condition);
  return Prisma.sql`FROM ${solutions} t ${statJoins(filter)} WHERE ${Prisma.join(conditions, " AND ")}`;
}

function direction(ascending: boolean): Prisma.Sql {
  return ascending ? Prisma.sql`ASC` : Prisma.sql`DESC`;
}

/** ORDER BY of the list, or of a walk through it (`reverse`: towards the start). */
export function listOrder(filter: SolutionFilter, reverse = false): Prisma.Sql {
  const ascending = (filter.order === "asc") !== reverse;
  return Prisma.sql`ORDER BY ${Prisma.join(
    listOrdering(filter).columns.map((c) => Prisma.sql`${c.expression} ${direction(ascending)}`),
    ", ",
  )}`;
}

/** Row comparison selecting what comes after (or before) a row whose sort values, as text, are `values`. */
export function keysetCondition(filter: SolutionFilter, values: string[], forward: boolean): Prisma.Sql {
  const { columns } = listOrdering(filter);
  const greater = forward === (filter.order === "asc");
  const left = Prisma.join(columns.map((c) => c.expression), ", ");
  const right = Prisma.join(columns.map((c, i) => Prisma.sql`${values[i]}::${c.type}`), ", ");
  return Prisma.sql`(${left}) ${greater ? Prisma.sql`>` : Prisma.sql`<`} (${right})`;
}

/** The sort values of a row, as text, for `keysetCondition`. */
export function sortValuesSelect(filter: SolutionFilter): Prisma.Sql {
  return Prisma.sql`ARRAY[${Prisma.join(listOrdering(filter).columns.map((c) => Prisma.sql`(${c.expression})::text`), ", ")}] AS "sortValues"`;
}
