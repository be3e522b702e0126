import { DISAGREEMENT_KINDS, InputError, type DisagreementKind, type FirstErrorPrediction } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { cached, disagreementListStore, rowsVersion, type CacheClient } from "./cache";
import { commonGoldQuery, loadComparableRuns, NO_PREDICTION, UNPARSEABLE_PREDICTION, wholeDatasetQuery, type ComparableRun } from "./runs";

interface DisagreementRow {
  solutionId: string;
  externalId: string;
  subset: string;
  gold: number;
  a: number;
  b: number;
  kind: DisagreementKind;
}

/** A coded prediction of `commonGoldQuery` as `predictionDisagreements` reads it: no usable prediction is null. */
const usable = (code: number): FirstErrorPrediction => (code === NO_PREDICTION || code === UNPARSEABLE_PREDICTION ? null : code);

/** SQL conditions of the page's subset and gold-position filters over `subsetColumn` and `label`. */
function subsetAndGoldFilters(subsetColumn: Prisma.Sql, input: Pick<DisagreementsInput, "subset" | "goldFirstError">): Prisma.Sql[] {
  const filters: Prisma.Sql[] = [];
  if (input.subset !== undefined) filters.push(Prisma.sql`${subsetColumn} = ${input.subset}`);
  const goldFilter = input.goldFirstError;
  if (goldFilter === "none") filters.push(Prisma.sql`label = -1`);
  else if (goldFilter === "error") filters.push(Prisma.sql`label >= 0`);
  else if (goldFilter !== undefined) filters.push(Prisma.sql`label = ${goldFilter}`);
  return filters;
}

/** Each condition as " AND <condition>", to follow a WHERE clause; nothing when there is none. */
function andEach(conditions: readonly Prisma.Sql[]): Prisma.Sql {
  return conditions.length ? Prisma.sql` AND ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
}

/**
 * One statement does what `predictionDisagreements` does over the common gold
 * (a missing and an unparseable prediction are both "no usable prediction"),
 * filters, counts and cuts the page, so only the page leaves the database.
 */
async function pageDisagreements(db: Db, runs: ComparableRun[], input: DisagreementsInput) {
  // No usable prediction (none stored, or unparseable) reads as NULL, so two of them never disagree.
  const usableA = Prisma.sql`CASE WHEN p0 < -1 THEN NULL ELSE p0 END`;
  const usableB = Prisma.sql`CASE WHEN p1 < -1 THEN NULL ELSE p1 END`;
  const filters = subsetAndGoldFilters(Prisma.raw(`"resolvedSubset"`), input);
  const kindFilter = input.kind ? Prisma.sql`kind = ${input.kind}` : Prisma.sql`true`;
  const [result] = await wholeDatasetQuery<Array<{ gold: number; subsets: string[] | null; counts: Record<string, number> | null; total: number; items: DisagreementRow[] | null }>>(
    db,
    Prisma.sql`WITH gold AS MATERIALIZED (${commonGoldQuery(runs)}),
          differing AS (
            SELECT id, "externalId", "resolvedSubset", label, "createdAt", p0, p1,
                   CASE WHEN ${usableA} = label THEN 'a_right' WHEN ${usableB} = label THEN 'b_right' ELSE 'both_wrong' END AS kind
              FROM gold
             WHERE ${usableA} IS DISTINCT FROM ${usableB}${andEach(filters)}),
          matching AS (SELECT * FROM differing WHERE ${kindFilter}),
          page AS (SELECT * FROM matching ORDER BY "createdAt", id OFFSET ${input.cursor} LIMIT ${input.limit})
     SELECT (SELECT count(*)::int FROM gold) AS gold,
            (SELECT array_agg(subset) FROM (SELECT DISTINCT "resolvedSubset" AS subset FROM gold) d) AS subsets,
            (SELECT json_object_agg(kind, n) FROM (SELECT kind, count(*)::int AS n FROM differing GROUP BY kind) k) AS counts,
            (SELECT count(*)::int FROM matching) AS total,
            (SELECT json_agg(json_build_object('solutionId', id, 'externalId', "externalId", 'subset', "resolvedSubset", 'gold', label, 'a', p0, 'b', p1, 'kind', kind) ORDER BY "createdAt", id) FROM page) AS items`,
  );
  const counts = Object.fromEntries(DISAGREEMENT_KINDS.map((k) => [k, result!.counts?.[k] ?? 0])) as Record<DisagreementKind, number>;
  const items = (result!.items ?? []).map((d) => ({ ...d, a: usable(d.a), b: usable(d.b) }));
  return { gold: result!.gold, subsets: (result!.subsets ?? []).sort((a, b) => a.localeCompare(b)), counts, total: result!.total, items };
}

interface DisagreementsInput {
  runA: string;
  runB: string;
  subset?: string;
  goldFirstError?: "none" | "error" | number;
  kind?: DisagreementKind;
  cursor: number;
  limit: number;
}

/** A stored list's items counted by subset, gold first error and kind (side a is the first of the sorted runs). */
interface DisagreementGroup {
  subset: string;
  label: number;
  aRight: number;
  bRight: number;
  bothWrong: number;
}

/** What DisagreementList keeps beside its items: enough to count any filter's page without reading them. */
export interface StoredDisagreements {
  gold: number;
  subsets: string[];
  groups: DisagreementGroup[];
}

/**
 * Two finished runs' disagreements as the compare cache lists them (`disagreementListStore`, under its lock and in
 * its transaction `tx`): in one statement every differing solution written as a DisagreementItem at its file-order
 * position, and counted by group.
 */
async function listDisagreements(tx: CacheClient, sorted: readonly ComparableRun[], runIds: string): Promise<StoredDisagreements> {
  await tx.$executeRaw(Prisma.sql`SET LOCAL work_mem = '64MB'`);
  const [row] = await tx.$queryRaw<Array<{ gold: number; subsets: string[] | null; groups: DisagreementGroup[] | null }>>(
    Prisma.sql`WITH gold AS MATERIALIZED (${commonGoldQuery(sorted)}),
          differing AS (SELECT * FROM gold WHERE (CASE WHEN p0 < -1 THEN NULL ELSE p0 END) IS DISTINCT FROM (CASE WHEN p1 < -1 THEN NULL ELSE p1 END)),
          written AS (
            INSERT INTO "DisagreementItem" ("runIds", "position", "solutionId", "externalId", "subset", "label", "a", "b")
            SELECT ${runIds}, (row_number() OVER (ORDER BY "createdAt", id) - 1)::int, id, "externalId", "resolvedSubset", label, p0, p1 FROM differing
            RETURNING 1)
     SELECT (SELECT count(*)::int FROM gold) AS gold,
            (SELECT array_agg(subset) FROM (SELECT DISTINCT "resolvedSubset" AS subset FROM gold) d) AS subsets,
            (SELECT json_agg(g) FROM (
               SELECT "resolvedSubset" AS subset, label,
                      count(*) FILTER (WHERE p0 = label)::int AS "aRight",
                      count(*) FILTER (WHERE p1 = label)::int AS "bRight",
                      count(*) FILTER (WHERE p0 <> label AND p1 <> label)::int AS "bothWrong"
                 FROM differing GROUP BY "resolvedSubset", label) g) AS groups,
            (SELECT count(*) FROM written) AS written`,
  );
  return { gold: row!.gold, subsets: (row!.subsets ?? []).sort((a, b) => a.localeCompare(b)), groups: row!.groups ?? [] };
}

/** Whether a gold first error passes the page's gold-position filter. */
function goldPasses(label: number, goldFilter: DisagreementsInput["goldFirstError"]): boolean {
  return goldFilter === undefined || (goldFilter === "none" ? label === -1 : goldFilter === "error" ? label >= 0 : label === goldFilter);
}

/**
 * `pageDisagreements`' answer from a stored list: counts from its groups, the page from its items in
 * file order (an index range of the pair, filtered as it is walked), the same filters, counts and order.
 * A coded prediction equals the gold only when usable (the gold is ≥ -1, unusable codes below), so a
 * side is right exactly when its code is the gold.
 */
async function pageStoredDisagreements(db: Db, sorted: readonly ComparableRun[], version: string, list: StoredDisagreements, swapped: boolean, input: DisagreementsInput) {
  const counts = Object.fromEntries(DISAGREEMENT_KINDS.map((k) => [k, 0])) as Record<DisagreementKind, number>;
  for (const group of list.groups) {
    if ((input.subset !== undefined && group.subset !== input.subset) || !goldPasses(group.label, input.goldFirstError)) continue;
    counts.a_right += swapped ? group.bRight : group.aRight;
    counts.b_right += swapped ? group.aRight : group.bRight;
    counts.both_wrong += group.bothWrong;
  }
  const total = input.kind ? counts[input.kind] : DISAGREEMENT_KINDS.reduce((sum, k) => sum + counts[k], 0);
  const runIds = sorted.map((r) => r.id).join(",");
  const filters = subsetAndGoldFilters(Prisma.raw("subset"), input);
  // The kind asked for, as the stored sides read it.
  const storedKind = input.kind && swapped ? ({ a_right: "b_right", b_right: "a_right", both_wrong: "both_wrong" } as const)[input.kind] : input.kind;
  if (storedKind === "a_right") filters.push(Prisma.sql`a = label`);
  else if (storedKind === "b_right") filters.push(Prisma.sql`b = label`);
  else if (storedKind === "both_wrong") filters.push(Prisma.sql`a <> label AND b <> label`);
  const rows =
    input.cursor < total
      ? await db.$queryRaw<Array<{ solutionId: string; externalId: string; subset: string; label: number; a: number; b: number }>>(
          Prisma.sql`SELECT "solutionId", "externalId", subset, label, a, b FROM "DisagreementItem"
            WHERE "runIds" = ${runIds}${andEach(filters)}
              -- the list the counts came from, not one stored since under a newer version
              AND EXISTS (SELECT 1 FROM "DisagreementList" l WHERE l."runIds" = ${runIds} AND l.version = ${version})
            ORDER BY position OFFSET ${input.cursor} LIMIT ${input.limit}`,
        )
      : [];
  const items = rows.map((row) => {
    const [sideA, sideB] = swapped ? [row.b, row.a] : [row.a, row.b];
    const kind: DisagreementKind = sideA === row.label ? "a_right" : sideB === row.label ? "b_right" : "both_wrong";
    return { solutionId: row.solutionId, externalId: row.externalId, subset: row.subset, gold: row.label, a: usable(sideA), b: usable(sideB), kind };
  });
  return { gold: list.gold, subsets: list.subsets, counts, total, items };
}

/**
 * Solutions two runs predict differently (on the gold they are compared on in
 * `checkpoints`), in file order, with who was right; `counts` splits the
 * subset / gold-position filtered list by kind before the kind filter applies.
 * Two finished runs' list is computed once and stored (DisagreementList with
 * its DisagreementItem rows) under the version of their rows and the dataset's
 * solutions, and each page is read from it; otherwise one statement filters,
 * counts and cuts the page.
 */
export async function compareDisagreements({ db, input }: ServiceArgs<DisagreementsInput>) {
  if (input.runA === input.runB) throw new InputError("pick two different runs");
  const runs = await loadComparableRuns(db, [input.runA, input.runB]);
  const version = await rowsVersion(db, { runIds: runs.map((r) => r.id), datasetIds: [runs[0]!.datasetId] });
  let page: Awaited<ReturnType<typeof pageDisagreements>>;
  if (version) {
    const sorted = [...runs].sort((x, y) => (x.id < y.id ? -1 : 1));
    const runIds = sorted.map((r) => r.id).join(",");
    // Listed once per version, under the pair's lock: other requests wait and read what it stored.
    const list = await cached(disagreementListStore(db, runIds), version, (tx) => listDisagreements(tx, sorted, runIds));
    page = await pageStoredDisagreements(db, sorted, version, list, sorted[0]!.id !== runs[0]!.id, input);
  } else {
    page = await pageDisagreements(db, runs, input);
  }
  const end = input.cursor + page.items.length;
  return { runA: runs[0]!, runB: runs[1]!, ...page, nextCursor: end < page.total ? end : null };
}
