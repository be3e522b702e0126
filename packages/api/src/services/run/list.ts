import { averageCoverage, InputError, labelRuleKey } from "@stepwiser/core";
import { Prisma, type RunStatus } from "@stepwiser/db";
import { DATA_RUN_KIND_NAMES, readRunSummary, runName, runSpend, tryReadRunConfig, type RunKind } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "./summary";

/**
 * What the runs list sorts by: the run's own columns, its duration (finished − started), and
 * the result columns its kind fills in when it finishes (`Run.averageF1` …, see `resultColumns`).
 */
export const RUN_LIST_SORTS = ["createdAt", "name", "tokens", "cost", "status", "duration", "averageF1", "prmscore", "negativeShare", "labelBalance", "meanConfidence", "mcAgreement"] as const;
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
  /**
   * Whether data jobs (imports and exports, `DATA_RUN_KIND_NAMES`) are listed; by default they
   * are not, unless `kinds` names one of their kinds.
   */
  includeDataJobs?: boolean;
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
  else if (!filter.includeDataJobs) conditions.push(Prisma.sql`r.kind NOT IN (${Prisma.join([...DATA_RUN_KIND_NAMES])})`);
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
    // Null until the run has started and ended.
    duration: Prisma.sql`(r."finishedAt" - r."startedAt")`,
    averageF1: Prisma.sql`r."averageF1"`,
    prmscore: Prisma.sql`r.prmscore`,
    negativeShare: Prisma.sql`r."negativeShare"`,
    labelBalance: Prisma.sql`r."labelBalance"`,
    meanConfidence: Prisma.sql`r."meanConfidence"`,
    mcAgreement: Prisma.sql`r."mcAgreement"`,
  }[sort];
  // Runs without the figure (no cost, not finished, another kind) come last either way; ties newest first, then by id.
  return Prisma.sql`ORDER BY ${key} ${direction} NULLS LAST, r."createdAt" DESC, r.id`;
}

/** The result columns a list row carries (`Run.averageF1` …). */
const resultColumnsSelect = {
  averageF1: true,
  prmscore: true,
  negativeShare: true,
  labelBalance: true,
  meanConfidence: true,
  mcAgreement: true,
  mcAgreementRun: { select: { id: true, kind: true, name: true, config: true } },
} satisfies Prisma.RunSelect;

/** A listed run's results: what its kind ranks it by, with what a cell needs to say what each figure is over. */
export interface RunListResults {
  /** A ProcessBench-scored benchmark's average F1; `partial` unless it is over ProcessBench's four subsets, which `subsets` names. */
  averageF1: { value: number; partial: boolean; subsets: string[] } | null;
  prmscore: number | null;
  /** A judge run's Negative samples among its readable ones. */
  negativeShare: number | null;
  /** An annotate run's Positive share and mean label confidence under `rule`, its first label rule. */
  labelBalance: number | null;
  meanConfidence: number | null;
  rule: string | null;
  /**
   * A judge run's agreement with Monte-Carlo labels: the share of its judged chunks labelled by `run` (an annotate
   * run) under `rule`, that run's first label rule, whose majority verdict equals the label.
   */
  mcAgreement: { value: number; run: { id: string; name: string }; rule: string | null } | null;
}

/**
 * One page of runs, filtered and sorted in the database: each with its progress,
 * dataset, creator, models and cost (`runSpend`, at the prices snapshotted at launch),
 * its duration and its results.
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
        select: { ...runSummarySelect, ...resultColumnsSelect, dataset: { select: { id: true, name: true } }, createdBy: { select: { id: true, name: true, email: true } } },
      })
    : [];
  // What an average F1 is over is in the benchmark's summary: read for the page's scored benchmark runs only.
  const scored = rows.filter((row) => row.averageF1 !== null).map((row) => row.id);
  const summaries = scored.length ? await db.run.findMany({ where: { id: { in: scored } }, select: { id: true, kind: true, summary: true } }) : [];
  const coverage = new Map(
    summaries.map((run) => {
      const summary = readRunSummary({ kind: run.kind, summary: run.summary });
      const subsets = summary && "subsets" in summary ? (summary.subsets_in_average ?? Object.keys(summary.subsets)) : [];
      return [run.id, averageCoverage(subsets)] as const;
    }),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const total = counted[0]?.total ?? 0;
  const runs = ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return []; // deleted between the two reads
    const { dataset, createdBy, averageF1, prmscore, negativeShare, labelBalance, meanConfidence, mcAgreement, mcAgreementRun, ...run } = row;
    const summary = toRunSummary(run);
    const covered = coverage.get(id);
    const results: RunListResults = {
      averageF1: averageF1 === null ? null : { value: averageF1, partial: covered?.average_is_partial ?? true, subsets: covered?.subsets_in_average ?? [] },
      prmscore,
      negativeShare,
      labelBalance,
      meanConfidence,
      rule: labelBalance === null && meanConfidence === null ? null : firstLabelRule(run),
      mcAgreement: mcAgreement === null || !mcAgreementRun ? null : { value: mcAgreement, run: { id: mcAgreementRun.id, name: runName(mcAgreementRun) }, rule: firstLabelRule(mcAgreementRun) },
    };
    const durationSeconds = run.startedAt && run.finishedAt ? Math.max(0, (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000) : null;
    return [{ ...summary, dataset, createdBy, ...runSpend(run, summary), durationSeconds, results }];
  });
  return { runs, total, offset: input.offset, limit: input.limit, hasMore: input.offset + input.limit < total };
}

/** An annotate run's first label rule as its config names it ("rel-ratio(gamma=0.7)"); null when the config does not read. */
function firstLabelRule(run: { id: string; kind: string; config: unknown }): string | null {
  if (run.kind !== "annotate") return null;
  const rule = tryReadRunConfig({ id: run.id, kind: "annotate", config: run.config })?.labelRules[0];
  return rule ? labelRuleKey(rule) : null;
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
