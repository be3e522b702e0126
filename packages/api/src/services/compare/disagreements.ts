import { DISAGREEMENT_KINDS, InputError, type DisagreementKind, type FirstErrorPrediction } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { commonGoldQuery, loadComparableRuns, NO_PREDICTION, rowsVersion, storedUnderVersion, UNPARSEABLE_PREDICTION, wholeDatasetQuery, type ComparableRun } from "./runs";

interface DisagreementRow {
  trajectoryId: string;
  externalId: string;
  subset: string;
  gold: number;
  a: number;
  b: number;
  kind: DisagreementKind;
}

/** A coded prediction of `commonGoldQuery` as `predictionDisagreements` reads it: no usable prediction is null. */
const usable = (code: number): FirstErrorPrediction => (code === NO_PREDICTION || code === UNPARSEABLE_PREDICTION ? null : code);

/**
 * One statement does what `predictionDisagreements` does over the common gold
 * (a missing and an unparseable prediction are both "no usable prediction"),
 * filters, counts and cuts the page, so only the page leaves the database.
 */
async function pageDisagreements(db: Db, runs: ComparableRun[], input: DisagreementsInput) {
  const { sql, params } = commonGoldQuery(runs);
  const next = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // No usable prediction (none stored, or unparseable) reads as NULL, so two of them never disagree.
  const usableA = `CASE WHEN p0 < -1 THEN NULL ELSE p0 END`;
  const usableB = `CASE WHEN p1 < -1 THEN NULL ELSE p1 END`;
  const filters: string[] = [];
  if (input.subset !== undefined) filters.push(`"resolvedSubset" = ${next(input.subset)}`);
  const goldFilter = input.goldFirstError;
  if (goldFilter === "none") filters.push("label = -1");
  else if (goldFilter === "error") filters.push("label >= 0");
  else if (goldFilter !== undefined) filters.push(`label = ${next(goldFilter)}`);
  const kindFilter = input.kind ? `kind = ${next(input.kind)}` : "true";
  const [result] = await wholeDatasetQuery<Array<{ gold: number; subsets: string[] | null; counts: Record<string, number> | null; total: number; items: DisagreementRow[] | null }>>(
    db,
    `WITH gold AS MATERIALIZED (${sql}),
          differing AS (
            SELECT id, "externalId", "resolvedSubset", label, "createdAt", p0, p1,
                   CASE WHEN ${usableA} = label THEN 'a_right' WHEN ${usableB} = label THEN 'b_right' ELSE 'both_wrong' END AS kind
              FROM gold
             WHERE ${usableA} IS DISTINCT FROM ${usableB} ${filters.map((f) => `AND ${f}`).join(" ")}),
          matching AS (SELECT * FROM differing WHERE ${kindFilter}),
          page AS (SELECT * FROM matching ORDER BY "createdAt", id OFFSET ${next(input.cursor)} LIMIT ${next(input.limit)})
     SELECT (SELECT count(*)::int FROM gold) AS gold,
            (SELECT array_agg(subset) FROM (SELECT DISTINCT "resolvedSubset" AS subset FROM gold) d) AS subsets,
            (SELECT json_object_agg(kind, n) FROM (SELECT kind, count(*)::int AS n FROM differing GROUP BY kind) k) AS counts,
            (SELECT count(*)::int FROM matching) AS total,
            (SELECT json_agg(json_build_object('trajectoryId', id, 'externalId', "externalId", 'subset', "resolvedSubset", 'gold', label, 'a', p0, 'b', p1, 'kind', kind) ORDER BY "createdAt", id) FROM page) AS items`,
    ...params,
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

/** Every solution two runs predict differently, in file order, as columns; the first run is side a. */
interface StoredDisagreements {
  gold: number;
  subsets: string[];
  trajectoryId: string[];
  externalId: string[];
  subset: string[];
  label: number[];
  a: number[];
  b: number[];
}

async function listDisagreements(db: Db, runs: readonly ComparableRun[]): Promise<StoredDisagreements> {
  const { sql, params } = commonGoldQuery(runs);
  const [row] = await wholeDatasetQuery<Array<StoredDisagreements & { subsets: string[] | null }>>(
    db,
    `WITH gold AS MATERIALIZED (${sql}),
          differing AS (SELECT * FROM gold WHERE (CASE WHEN p0 < -1 THEN NULL ELSE p0 END) IS DISTINCT FROM (CASE WHEN p1 < -1 THEN NULL ELSE p1 END))
     SELECT (SELECT count(*)::int FROM gold) AS gold,
            (SELECT array_agg(subset) FROM (SELECT DISTINCT "resolvedSubset" AS subset FROM gold) d) AS subsets,
            coalesce(array_agg(id ORDER BY "createdAt", id), '{}') AS "trajectoryId",
            coalesce(array_agg("externalId" ORDER BY "createdAt", id), '{}') AS "externalId",
            coalesce(array_agg("resolvedSubset" ORDER BY "createdAt", id), '{}') AS subset,
            coalesce(array_agg(label ORDER BY "createdAt", id), '{}') AS label,
            coalesce(array_agg(p0 ORDER BY "createdAt", id), '{}') AS a,
            coalesce(array_agg(p1 ORDER BY "createdAt", id), '{}') AS b
       FROM differing`,
    ...params,
  );
  return { ...row!, subsets: (row!.subsets ?? []).sort((a, b) => a.localeCompare(b)) };
}

/** `pageDisagreements`' answer from the stored list: the same filters, counts, order and page. */
function pageStoredDisagreements(list: StoredDisagreements, swapped: boolean, input: DisagreementsInput) {
  const [sideA, sideB] = swapped ? [list.b, list.a] : [list.a, list.b];
  const counts = Object.fromEntries(DISAGREEMENT_KINDS.map((k) => [k, 0])) as Record<DisagreementKind, number>;
  const matching: number[] = [];
  const goldFilter = input.goldFirstError;
  const kindOf = (i: number): DisagreementKind => (usable(sideA[i]!) === list.label[i] ? "a_right" : usable(sideB[i]!) === list.label[i] ? "b_right" : "both_wrong");
  for (let i = 0; i < list.trajectoryId.length; i++) {
    if (input.subset !== undefined && list.subset[i] !== input.subset) continue;
    const label = list.label[i]!;
    if (goldFilter === "none" ? label !== -1 : goldFilter === "error" ? label < 0 : goldFilter !== undefined && label !== goldFilter) continue;
    const kind = kindOf(i);
    counts[kind] += 1;
    if (!input.kind || kind === input.kind) matching.push(i);
  }
  const items = matching.slice(input.cursor, input.cursor + input.limit).map((i) => ({
    trajectoryId: list.trajectoryId[i]!,
    externalId: list.externalId[i]!,
    subset: list.subset[i]!,
    gold: list.label[i]!,
    a: usable(sideA[i]!),
    b: usable(sideB[i]!),
    kind: kindOf(i),
  }));
  return { gold: list.gold, subsets: list.subsets, counts, total: matching.length, items };
}

/**
 * Solutions two runs predict differently (on the gold they are compared on in
 * `checkpoints`), in file order, with who was right; `counts` splits the
 * subset / gold-position filtered list by kind before the kind filter applies.
 * Two finished runs' list is computed once and stored (DisagreementList) under
 * the version of their rows and the dataset's solutions, and each page is cut
 * from it; otherwise one statement filters, counts and cuts the page.
 */
export async function compareDisagreements({ db, input }: ServiceArgs<DisagreementsInput>) {
  if (input.runA === input.runB) throw new InputError("pick two different runs");
  const runs = await loadComparableRuns(db, [input.runA, input.runB]);
  const version = await rowsVersion(db, { runIds: runs.map((r) => r.id), datasetIds: [runs[0]!.datasetId] });
  let page: Awaited<ReturnType<typeof pageDisagreements>>;
  if (version) {
    const sorted = [...runs].sort((x, y) => (x.id < y.id ? -1 : 1));
    const runIds = sorted.map((r) => r.id).join(",");
    const list = await storedUnderVersion(
      version,
      {
        read: async () => {
          const row = await db.disagreementList.findUnique({ where: { runIds } });
          return row && { version: row.version, value: row.list };
        },
        write: (version, list) => db.disagreementList.upsert({ where: { runIds }, create: { runIds, version, list }, update: { version, list } }),
      },
      () => listDisagreements(db, sorted),
    );
    page = pageStoredDisagreements(list, sorted[0]!.id !== runs[0]!.id, input);
  } else {
    page = await pageDisagreements(db, runs, input);
  }
  const end = input.cursor + page.items.length;
  return { runA: runs[0]!, runB: runs[1]!, ...page, nextCursor: end < page.total ? end : null };
}
