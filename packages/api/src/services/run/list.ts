import { InputError } from "@stepwiser/core";
import { Prisma, type RunStatus } from "@stepwiser/db";
import { runSpend, type RunKind } from "@stepwiser/jobs";
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

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function whereOf(filter: RunListFilter): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (filter.datasetId) conditions.push(Prisma.sql`r."datasetId" = ${filter.datasetId}`);
  if (filter.search) conditions.push(Prisma.sql`r.name ILIKE ${likeContains(filter.search)}`);
  if (filter.kinds?.length) conditions.push(Prisma.sql`r.kind IN (${Prisma.join(filter.kinds)})`);
  if (filter.statuses?.length) conditions.push(Prisma.sql`r.status IN (${Prisma.join(filter.statuses.map((s) => Prisma.sql`${s}::"RunStatus"`))})`);
  if (filter.model) conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM "RunModel" m WHERE m."runId" = r.id AND m.model = ${filter.model})`);
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
    // Kept with the token counters by core's `runCost` (null where a run's cost is not defined).
    cost: Prisma.sql`r."costUsd"`,
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
      SELECT r.id FROM "Run" r
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
    db.runModel.findMany({ distinct: ["model"], select: { model: true }, orderBy: { model: "asc" } }),
    db.$queryRaw<{ tag: string }[]>(Prisma.sql`SELECT DISTINCT unnest(tags) AS tag FROM "Run" ORDER BY tag`),
    db.user.findMany({ where: { runs: { some: {} } }, select: { id: true, name: true, email: true }, orderBy: { name: "asc" } }),
    db.dataset.findMany({ where: { runs: { some: {} } }, select: { id: true, name: true }, orderBy: { name: "asc" } }),
  ]);
  return { models: models.map((m) => m.model), tags: tags.map((t) => t.tag), creators, datasets };
}
