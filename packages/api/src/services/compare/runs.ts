import { InputError, NotFoundError, subsetFromId, type FirstErrorPrediction, type ProcessBenchGold, type TiePolicy, JUDGE_PROTOCOLS, judgeProtocolRef, type JudgeProtocolId } from "@stepwiser/core";
import { Prisma, type Db, type RunStatus } from "@stepwiser/db";
import { describeRun, readRunConfig, readSummary, runName, type RunKind } from "@stepwiser/jobs";
import { z } from "zod";

/** The protocol a judge or benchmark run's summary recorded, where it recorded one. */
const recordedProtocolSchema = z.object({ protocol: z.string() });

/**
 * What the compare procedures share: which runs can be compared, how each
 * run's solution-level prediction is read, and the gold solutions a set of
 * runs is compared on.
 */

/** A run with solution-level first-error predictions: a benchmark run or a judge run. */
export interface ComparableRun {
  id: string;
  kind: "benchmark" | "judge";
  status: RunStatus;
  datasetId: string;
  createdAt: Date;
  judgeModel: string | null;
  /** Judge samples per chunk (K). */
  samples: number;
  tiePolicy: TiePolicy;
  stopAtFirstNegative: boolean;
  segmentationMethod: string;
  /** The judge protocol the run spoke (stored runs from before protocols read as stepwiser-chunk or processbench-critic). */
  protocol: JudgeProtocolId;
  /** `id@vN` as the run recorded it in its summary (a run made under an older protocol version keeps it), else the current version. */
  protocolRef: string;
  /** The prompt template the run asked with (the judge prompt or the critic template), null for protocols with their own format. */
  promptTemplateId: string | null;
  /** It stored judge samples per chunk (every stepwise protocol but the ProcessBench critic, which names one index per solution). */
  chunkSamples: boolean;
  /** Judged only part of the dataset (a limit or a list of solutions): its gold is what it predicted. */
  partial: boolean;
  /** The run's name (`runName`), where a short mention fits. */
  name: string;
  /** One line naming the run in pickers and table headers. */
  label: string;
}

/** Protocols whose runs store a judge sample per chunk, read like StepWiser's by the chunk-level views. */
export function hasChunkSamples(protocol: JudgeProtocolId): boolean {
  return JUDGE_PROTOCOLS[protocol].stepwise && protocol !== "processbench-critic";
}

export const COMPARABLE_KINDS = ["benchmark", "judge"] as const satisfies readonly RunKind[];

/** A benchmark or judge run as the compare views read it: its config through the typed reader, its one label. */
export function comparableRun(run: { id: string; kind: string; name: string | null; status: RunStatus; datasetId: string | null; createdAt: Date; config: unknown; summary?: unknown }): ComparableRun {
  const { kind } = run;
  if (kind !== "benchmark" && kind !== "judge") {
    throw new InputError(`run ${run.id} is a ${kind} run; only benchmark and judge runs have first-error predictions`);
  }
  if (!run.datasetId) throw new InputError(`run ${run.id} has no dataset`);
  const config = readRunConfig({ ...run, kind });
  return {
    id: run.id,
    kind,
    status: run.status,
    datasetId: run.datasetId,
    createdAt: run.createdAt,
    judgeModel: config.judge?.model ?? config.judgeEndpoint,
    samples: config.samples,
    tiePolicy: config.tiePolicy,
    stopAtFirstNegative: config.stopAtFirstNegative,
    segmentationMethod: config.segmentationMethod,
    protocol: config.protocol,
    protocolRef: recordedProtocolRef(run.summary, config.protocol),
    promptTemplateId: config.protocol === "processbench-critic" ? ("criticPromptTemplateId" in config ? config.criticPromptTemplateId : null) : (config.judgePromptTemplateId ?? null),
    chunkSamples: hasChunkSamples(config.protocol),
    partial: config.limit !== undefined || ("solutionIds" in config && (config.solutionIds?.length ?? 0) > 0),
    name: runName(run),
    label: describeRun(run),
  };
}

/** The protocol version a run's summary recorded (`protocol: "id@vN"`), when it names this protocol; else the current one. */
function recordedProtocolRef(summary: unknown, protocol: JudgeProtocolId): string {
  const recorded = readSummary(recordedProtocolSchema, summary)?.protocol;
  return recorded !== undefined && new RegExp(`^${protocol}@v\\d+$`).test(recorded) ? recorded : judgeProtocolRef(protocol);
}

const runSelect = { id: true, kind: true, name: true, status: true, datasetId: true, createdAt: true, config: true, summary: true } as const;

/** The runs in the order asked for; all must exist, be comparable and share one dataset. */
export async function loadComparableRuns(db: Db, ids: readonly string[]): Promise<ComparableRun[]> {
  if (new Set(ids).size !== ids.length) throw new InputError("a run is listed twice");
  const rows = await db.run.findMany({ where: { id: { in: [...ids] } }, select: runSelect });
  const runs = ids.map((id) => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw new NotFoundError(`run ${id} does not exist`);
    return comparableRun(row);
  });
  const datasets = [...new Set(runs.map((r) => r.datasetId))];
  if (datasets.length > 1) {
    throw new InputError(
      `runs can only be compared on one dataset; these are on ${datasets.length}: ${runs.map((r) => `${r.id} → ${r.datasetId}`).join(", ")}`,
    );
  }
  return runs;
}

/** A run that stored judge samples per chunk (judge runs and chunk-judge benchmarks). */
export async function loadJudgeSampleRun(db: Db, id: string): Promise<ComparableRun> {
  const [run] = await loadComparableRuns(db, [id]);
  if (!run!.chunkSamples) {
    throw new InputError(`run ${id} spoke protocol ${run!.protocol}: it judged whole solutions and stored no per-chunk judge samples`);
  }
  return run!;
}

export interface GoldSolution extends ProcessBenchGold {
  /** The solution's external id (ProcessBench `id`). */
  id: string;
  subset: string;
  solutionId: string;
}

export interface CommonGold {
  /** In file order (createdAt, id), the order the benchmark summary bootstraps in. */
  gold: GoldSolution[];
  /** Per run, predictions keyed by external id. */
  predictions: Map<string, Map<string, FirstErrorPrediction>>;
}

/**
 * The gold solutions every run is scored on, as the benchmark handler builds
 * its own: solutions with a source first error that have the run's
 * segmentation; a partial run (limit or solution list) counts only the
 * solutions it predicted. Several runs are compared on the intersection, so a
 * difference is never due to one run seeing more solutions; a solution inside
 * every run's scope but without a prediction (an unfinished run) is scored as
 * wrong, as in the summary.
 */
export async function loadCommonGold(db: Db, runs: readonly ComparableRun[]): Promise<CommonGold> {
  // One statement; each run's prediction arrives as one integer (see `commonGoldQuery`), so 100k rows stay narrow.
  const predictionColumns = Prisma.join(runs.map((_, i) => predictionColumn(i)), ", ");
  const rows = await wholeDatasetQuery<Array<Record<string, number> & { id: string; externalId: string; subset: string | null; label: number }>>(
    db,
    Prisma.sql`SELECT id, "externalId", subset, label, ${predictionColumns} FROM (${commonGoldQuery(runs)}) gold ORDER BY "createdAt", id`,
  );
  const gold: GoldSolution[] = new Array(rows.length);
  const predictions = new Map<string, Map<string, FirstErrorPrediction>>(runs.map((run) => [run.id, new Map()]));
  const own = runs.map((run) => predictions.get(run.id)!);
  rows.forEach((row, r) => {
    gold[r] = { id: row.externalId, label: row.label, subset: row.subset ?? subsetFromId(row.externalId), solutionId: row.id };
    for (let i = 0; i < runs.length; i++) {
      const code = row[`p${i}`]!;
      if (code !== NO_PREDICTION) own[i]!.set(row.externalId, code === UNPARSEABLE_PREDICTION ? null : code);
    }
  });
  return { gold, predictions };
}

/**
 * A read over a whole dataset with room to sort and hash in memory (the
 * default work_mem spills 100k-row sorts and million-chunk aggregates to disk):
 * the setting holds for this one transaction.
 */
export async function wholeDatasetQuery<T>(db: Db, query: Prisma.Sql): Promise<T> {
  return wholeDatasetQueryWith<T>(db, { parallel: true }, query);
}

/**
 * `wholeDatasetQuery`, optionally without parallel workers: for a full join of two index-ordered scans (chunk
 * votes with chunk labels), a merge join in one process was twice as fast on two cores as a parallel hash join
 * whose workers share out the index pages one at a time (web benchmark, DECISIONS).
 */
export async function wholeDatasetQueryWith<T>(db: Db, options: { parallel: boolean }, query: Prisma.Sql): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw(Prisma.sql`SET LOCAL work_mem = '64MB'`);
      if (!options.parallel) await tx.$executeRaw(Prisma.sql`SET LOCAL max_parallel_workers_per_gather = 0`);
      return tx.$queryRaw<T>(query);
    },
    { timeout: 300_000 },
  );
}

/** Run statuses after which a run's stored rows no longer change (resuming one finishes it again, at a later time). */
export const FINISHED_STATUSES: ReadonlySet<string> = new Set(["completed", "completed_with_failures"]);

/** How `commonGoldQuery` codes a run's prediction: a first-error index (≥ -1), unparseable, or none stored. */
export const UNPARSEABLE_PREDICTION = -2;
export const NO_PREDICTION = -3;

/** `subsetFromId` in SQL: "<subset>-<number>" → subset, any other id → itself (`.` as JavaScript reads it, no line terminator). */
const SUBSET_OF_ID = Prisma.raw(`CASE WHEN t."externalId" ~ '^[^\n\r\u2028\u2029]+-[0-9]+$' THEN substring(t."externalId" from '^([^\n\r\u2028\u2029]+)-[0-9]+$') ELSE t."externalId" END`);

/** Run i's prediction column in `commonGoldQuery` (`p<i>`, also the alias of its prediction table). */
export function predictionColumn(i: number): Prisma.Sql {
  return Prisma.raw(`p${i}`);
}

/** A prediction code as an SQL literal. */
export function predictionCode(code: typeof UNPARSEABLE_PREDICTION | typeof NO_PREDICTION): Prisma.Sql {
  return Prisma.raw(String(code));
}

/**
 * The common gold of `loadCommonGold` as a SELECT (unordered; order by
 * "createdAt", id for file order): id, externalId, subset (stored, null when
 * the id names it), resolvedSubset (as `goldSubset` resolves it), label,
 * createdAt, and per run i a column p<i> (`predictionColumn`): the prediction,
 * UNPARSEABLE_PREDICTION or NO_PREDICTION. Each run's prediction table is
 * joined through its (runId, solutionId) key.
 */
export function commonGoldQuery(runs: readonly ComparableRun[]): Prisma.Sql {
  const joins: Prisma.Sql[] = [];
  const columns: Prisma.Sql[] = [];
  const scope: Prisma.Sql[] = [];
  runs.forEach((run, i) => {
    const p = predictionColumn(i);
    const [table, column] = run.kind === "benchmark" ? [Prisma.raw(`"SolutionPrediction"`), Prisma.raw(`"predictedFirstError"`)] : [Prisma.raw(`"SolutionRunStat"`), Prisma.raw(`"firstNegative"`)];
    joins.push(Prisma.sql`LEFT JOIN ${table} ${p} ON ${p}."runId" = ${run.id} AND ${p}."solutionId" = t.id`);
    columns.push(Prisma.sql`CASE WHEN ${p}."solutionId" IS NULL THEN ${predictionCode(NO_PREDICTION)} ELSE coalesce(${p}.${column}, ${predictionCode(UNPARSEABLE_PREDICTION)}) END AS ${p}`);
    scope.push(
      run.partial
        ? Prisma.sql`${p}."solutionId" IS NOT NULL`
        : Prisma.sql`EXISTS (SELECT 1 FROM "Segmentation" s WHERE s."solutionId" = t.id AND s.method = ${run.segmentationMethod})`,
    );
  });
  return Prisma.sql`SELECT t.id, t."externalId", t.subset, coalesce(t.subset, ${SUBSET_OF_ID}) AS "resolvedSubset", t."sourceFirstErrorIndex" AS label, t."createdAt", ${Prisma.join(columns, ", ")}
       FROM "Solution" t ${Prisma.join(joins, " ")}
      WHERE t."datasetId" = ${runs[0]!.datasetId} AND t."sourceFirstErrorIndex" IS NOT NULL AND ${Prisma.join(scope, " AND ")}`;
}
