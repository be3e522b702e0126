import { DISAGREEMENT_KINDS, InputError, type DisagreementKind, type FirstErrorPrediction } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { commonGoldQuery, loadComparableRuns, NO_PREDICTION, UNPARSEABLE_PREDICTION, wholeDatasetQuery } from "./runs";

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
 * Solutions two runs predict differently (on the gold they are compared on in
 * `checkpoints`), in file order, with who was right. `counts` splits the
 * subset / gold-position filtered list by kind before the kind filter applies.
 *
 * One statement does what `predictionDisagreements` does over the common gold
 * (a missing and an unparseable prediction are both "no usable prediction"),
 * filters, counts and cuts the page, so only the page leaves the database.
 */
export async function compareDisagreements({ db, input }: ServiceArgs<{ runA: string; runB: string; subset?: string; goldFirstError?: "none" | "error" | number; kind?: DisagreementKind; cursor: number; limit: number }>) {
  if (input.runA === input.runB) throw new InputError("pick two different runs");
  const runs = await loadComparableRuns(db, [input.runA, input.runB]);
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
  const end = input.cursor + items.length;
  return {
    runA: runs[0]!,
    runB: runs[1]!,
    gold: result!.gold,
    subsets: (result!.subsets ?? []).sort((a, b) => a.localeCompare(b)),
    counts,
    total: result!.total,
    items,
    nextCursor: end < result!.total ? end : null,
  };
}
