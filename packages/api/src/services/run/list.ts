import { InputError } from "@stepwiser/core";
import { Prisma, type RunKind, type RunStatus } from "@stepwiser/db";
import { RUN_ENDPOINT_ROLES, runSpend } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "./summary";

/** What the runs list sorts by. */
export const RUN_LIST_SORTS = ["createdAt", "name", "tokens", "cost", "status"] as const;
export type RunListSort = (typeof RUN_LIST_SORTS)[number];

export interface RunListFilter {
  datasetId?: string;
  search?: string;
  kinds?: RunKind[];
  statuses?: RunStatus[];
  model?: string;
  tag?: string;
  createdById?: string;
  /** YYYY-MM-DD, UTC, both days included. */
  createdFrom?: string;
  createdTo?: string;
}

export interface RunListInput extends RunListFilter {
  sort: RunListSort;
  order: "asc" | "desc";
  /** Runs to skip, and at most how many to return. */
  offset: number;
  limit: number;
}

/** Status order when sorting by status: what still goes first, then what needs a look, then the rest. */
const STATUS_ORDER: RunStatus[] = ["running", "queued", "failed", "completed_with_failures", "completed", "cancelled"];

/**
 * The one endpoint snapshot whose prices a run's cost uses, in SQL: the kinds whose
 * counters cover one endpoint (`RUN_ENDPOINT_ROLES`); null for the others, whose cost is not defined.
 */
const SPENDING_ENDPOINT = Prisma.sql`CASE ${Prisma.join(
  Object.entries(RUN_ENDPOINT_ROLES)
    .filter(([, roles]) => roles.length === 1)
    .map(([kind, roles]) => Prisma.sql`WHEN r.kind = ${kind}::"RunKind" THEN r.config -> ${roles[0]}`),
  " ",
)} END`;

/** `tokenCostUsd` (core) in SQL, for sorting: cached tokens are part of the prompt tokens and cost the cached price, else the prompt price. */
const COST_USD = Prisma.sql`(
  ((r."promptTokens" - LEAST(r."cachedTokens", r."promptTokens")) * (spend.e ->> 'promptPricePerMTokens')::float8
  + LEAST(r."cachedTokens", r."promptTokens") * COALESCE((spend.e ->> 'cachedPromptPricePerMTokens')::float8, (spend.e ->> 'promptPricePerMTokens')::float8)
  + r."completionTokens" * (spend.e ->> 'completionPricePerMTokens')::float8) / 1000000.0)`;

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function whereOf(filter: RunListFilter): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (filter.datasetId) conditions.push(Prisma.sql`r."datasetId" = ${filter.datasetId}`);
  if (filter.search) conditions.push(Prisma.sql`r.name ILIKE ${likeContains(filter.search)}`);
  if (filter.kinds?.length) conditions.push(Prisma.sql`r.kind IN (${Prisma.join(filter.kinds.map((k) => Prisma.sql`${k}::"RunKind"`))})`);
  if (filter.statuses?.length) conditions.push(Prisma.sql`r.status IN (${Prisma.join(filter.statuses.map((s) => Prisma.sql`${s}::"RunStatus"`))})`);
  if (filter.model) {
    const roles = ["policy", "judge", "segmenter"];
    conditions.push(Prisma.sql`(${Prisma.join(roles.map((role) => Prisma.sql`r.config -> ${role} ->> 'model' = ${filter.model}`), " OR ")})`);
  }
  // `@>` on the tags array: answered from the GIN index.
  if (filter.tag) conditions.push(Prisma.sql`r.tags @> ARRAY[${filter.tag}]::text[]`);
  if (filter.createdById) conditions.push(Prisma.sql`r."createdById" = ${filter.createdById}`);
  if (filter.createdFrom) conditions.push(Prisma.sql`r."createdAt" >= ${filter.createdFrom}::date`);
  if (filter.createdTo) conditions.push(Prisma.sql`r."createdAt" < ${filter.createdTo}::date + 1`);
  return conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
}

function orderOf(sort: RunListSort, order: "asc" | "desc"): Prisma.Sql {
  const direction = order === "asc" ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  const key = {
    createdAt: Prisma.sql`r."createdAt"`,
    name: Prisma.sql`lower(r.name)`,
    tokens: Prisma.sql`(r."promptTokens" + r."completionTokens")`,
    cost: COST_USD,
    status: Prisma.sql`array_position(ARRAY[${Prisma.join(STATUS_ORDER)}]::text[], r.status::text)`,
  }[sort];
  // Runs without a cost (or name) come last either way; ties newest first.
  return Prisma.sql`ORDER BY ${key} ${direction} NULLS LAST, r."createdAt" DESC, r.id`;
}

/**
 * One page of runs, filtered and sorted in the database: each with its progress,
 * dataset, creator, models and cost (`runSpend`, at the prices snapshotted at launch).
 */
export async function listRuns({ db, input }: ServiceArgs<RunListInput>) {
  if (input.createdFrom && input.createdTo && input.createdFrom > input.createdTo) {
    throw new InputError(`the last day (${input.createdTo}) is before the first (${input.createdFrom})`, { field: "createdTo" });
  }
  const where = whereOf(input);
  const [counted, ordered] = await Promise.all([
    db.$queryRaw<{ total: number }[]>(Prisma.sql`SELECT count(*)::int AS total FROM "Run" r ${where}`),
    db.$queryRaw<{ id: string }[]>(Prisma.sql`
      SELECT r.id FROM "Run" r CROSS JOIN LATERAL (SELECT ${SPENDING_ENDPOINT} AS e) spend
      ${where}
      ${orderOf(input.sort, input.order)}
      LIMIT ${input.limit} OFFSET ${input.offset}`),
  ]);
  const ids = ordered.map((row) => row.id);
  const rows = ids.length
    ? await db.run.findMany({
        where: { id: { in: ids } },
        select: { ...runSummarySelect, dataset: { select: { id: true, name: true } }, createdBy: { select: { id: true, name: true, email: true } } },
      })
    : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const total = counted[0]?.total ?? 0;
  const runs = ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return []; // deleted between the two reads
    const { dataset, createdBy, ...run } = row;
    const summary = toRunSummary(run);
    return [{ ...summary, dataset, createdBy, ...runSpend(run, summary) }];
  });
  return { runs, total, offset: input.offset, limit: input.limit, hasMore: input.offset + input.limit < total };
}

/** `listRuns` by numbered pages of `pageSize`, as the Runs page pages. */
export async function listRunsByPage({ db, user, input }: ServiceArgs<Omit<RunListInput, "offset" | "limit"> & { page: number; pageSize: number }>) {
  const { page, pageSize, ...filter } = input;
  const { runs, total, hasMore } = await listRuns({ db, user, input: { ...filter, offset: (page - 1) * pageSize, limit: pageSize } });
  return { runs, total, page, pageSize, hasMore };
}

/** What the runs list's filters offer: every model, tag, creator and dataset some run has. */
export async function runFilterOptions({ db }: ServiceArgs<unknown>) {
  const [models, tags, creators, datasets] = await Promise.all([
    db.$queryRaw<{ model: string }[]>(Prisma.sql`
      SELECT DISTINCT m.model FROM "Run" r
      CROSS JOIN LATERAL (VALUES (r.config -> 'policy' ->> 'model'), (r.config -> 'judge' ->> 'model'), (r.config -> 'segmenter' ->> 'model')) AS m(model)
      WHERE m.model IS NOT NULL ORDER BY m.model`),
    db.$queryRaw<{ tag: string }[]>(Prisma.sql`SELECT DISTINCT unnest(tags) AS tag FROM "Run" ORDER BY tag`),
    db.user.findMany({ where: { runs: { some: {} } }, select: { id: true, name: true, email: true }, orderBy: { name: "asc" } }),
    db.dataset.findMany({ where: { runs: { some: {} } }, select: { id: true, name: true }, orderBy: { name: "asc" } }),
  ]);
  return { models: models.map((m) => m.model), tags: tags.map((t) => t.tag), creators, datasets };
}
