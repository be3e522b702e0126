import { InputError, NotFoundError, subsetFromId, type CheckpointOutcomeCounts, type FirstErrorPrediction, type ProcessBenchGold, type TiePolicy, JUDGE_PROTOCOLS, judgeProtocolRef, type JudgeProtocolId } from "@stepwiser/core";
import type { Db, Prisma, RunKind, RunStatus } from "@stepwiser/db";
import { describeRun, readRunConfig, runName } from "@stepwiser/jobs";

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
export function comparableRun(run: { id: string; kind: RunKind; name: string | null; status: RunStatus; datasetId: string | null; createdAt: Date; config: unknown; summary?: unknown }): ComparableRun {
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
    partial: config.limit !== undefined || ("trajectoryIds" in config && (config.trajectoryIds?.length ?? 0) > 0),
    name: runName(run),
    label: describeRun(run),
  };
}

/** The protocol version a run's summary recorded (`protocol: "id@vN"`), when it names this protocol; else the current one. */
function recordedProtocolRef(summary: unknown, protocol: JudgeProtocolId): string {
  const recorded = typeof summary === "object" && summary !== null && "protocol" in summary ? (summary as { protocol: unknown }).protocol : undefined;
  return typeof recorded === "string" && new RegExp(`^${protocol}@v\\d+$`).test(recorded) ? recorded : judgeProtocolRef(protocol);
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
  trajectoryId: string;
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
  const { sql, params } = commonGoldQuery(runs);
  // One statement; each run's prediction arrives as one integer (see `commonGoldQuery`), so 100k rows stay narrow.
  const rows = await wholeDatasetQuery<Array<Record<string, number> & { id: string; externalId: string; subset: string | null; label: number }>>(
    db,
    `SELECT id, "externalId", subset, label, ${runs.map((_, i) => `p${i}`).join(", ")} FROM (${sql}) gold ORDER BY "createdAt", id`,
    ...params,
  );
  const gold: GoldSolution[] = new Array(rows.length);
  const predictions = new Map<string, Map<string, FirstErrorPrediction>>(runs.map((run) => [run.id, new Map()]));
  const own = runs.map((run) => predictions.get(run.id)!);
  rows.forEach((row, r) => {
    gold[r] = { id: row.externalId, label: row.label, subset: row.subset ?? subsetFromId(row.externalId), trajectoryId: row.id };
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
export async function wholeDatasetQuery<T>(db: Db, sql: string, ...params: unknown[]): Promise<T> {
  return wholeDatasetQueryWith<T>(db, { parallel: true }, sql, ...params);
}

/**
 * `wholeDatasetQuery`, optionally without parallel workers: for a full join of two index-ordered scans (chunk
 * votes with chunk labels), a merge join in one process was twice as fast on two cores as a parallel hash join
 * whose workers share out the index pages one at a time (web benchmark, DECISIONS).
 */
export async function wholeDatasetQueryWith<T>(db: Db, options: { parallel: boolean }, sql: string, ...params: unknown[]): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL work_mem = '64MB'");
      if (!options.parallel) await tx.$executeRawUnsafe("SET LOCAL max_parallel_workers_per_gather = 0");
      return tx.$queryRawUnsafe<T>(sql, ...params);
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
const SUBSET_OF_ID = `CASE WHEN t."externalId" ~ '^[^\n\r\u2028\u2029]+-[0-9]+$' THEN substring(t."externalId" from '^([^\n\r\u2028\u2029]+)-[0-9]+$') ELSE t."externalId" END`;

/**
 * The common gold of `loadCommonGold` as a SELECT (unordered; order by
 * "createdAt", id for file order): id, externalId, subset (stored, null when
 * the id names it), resolvedSubset (as `goldSubset` resolves it), label,
 * createdAt, and per run i a column p<i>: the prediction, UNPARSEABLE_PREDICTION
 * or NO_PREDICTION. Each run's prediction table is joined through its
 * (runId, trajectoryId) key; $1 is the dataset.
 */
export function commonGoldQuery(runs: readonly ComparableRun[], firstParam = 1): { sql: string; params: unknown[] } {
  const params: unknown[] = [runs[0]!.datasetId];
  const param = (value: unknown) => {
    params.push(value);
    return `$${firstParam + params.length - 1}`;
  };
  const joins: string[] = [];
  const columns: string[] = [];
  const scope: string[] = [];
  runs.forEach((run, i) => {
    const runParam = param(run.id);
    const [table, column] = run.kind === "benchmark" ? ["SolutionPrediction", "predictedFirstError"] : ["TrajectoryRunStat", "firstNegative"];
    joins.push(`LEFT JOIN "${table}" p${i} ON p${i}."runId" = ${runParam} AND p${i}."trajectoryId" = t.id`);
    columns.push(`CASE WHEN p${i}."trajectoryId" IS NULL THEN ${NO_PREDICTION} ELSE coalesce(p${i}."${column}", ${UNPARSEABLE_PREDICTION}) END AS p${i}`);
    scope.push(
      run.partial
        ? `p${i}."trajectoryId" IS NOT NULL`
        : `EXISTS (SELECT 1 FROM "Segmentation" s WHERE s."trajectoryId" = t.id AND s.method = ${param(run.segmentationMethod)})`,
    );
  });
  const sql = `SELECT t.id, t."externalId", t.subset, coalesce(t.subset, ${SUBSET_OF_ID}) AS "resolvedSubset", t."sourceFirstErrorIndex" AS label, t."createdAt", ${columns.join(", ")}
       FROM "Trajectory" t ${joins.join(" ")}
      WHERE t."datasetId" = $${firstParam} AND t."sourceFirstErrorIndex" IS NOT NULL AND ${scope.join(" AND ")}`;
  return { sql, params };
}

/** Each run's outcome counts on the common gold and the key of what its bootstrap replicates are drawn from. */
export interface CommonGoldOutcomes {
  /** Gold solutions compared on. */
  gold: number;
  /** Subsets as `compareCheckpoints` orders them. */
  subsets: string[];
  /** Per run, in the order given. */
  runs: Array<{ counts: CheckpointOutcomeCounts; replicatesKey: string }>;
}

/**
 * What `compareCheckpointCounts` needs of the common gold, counted in the
 * database without sending the solutions: per run and subset the four outcome
 * classes, its missing and unparseable predictions, and `replicatesKey`, a
 * SHA-256 over the gold items in file order (solution id, external id,
 * first-error label, subset) each with the run's prediction ("none" for a
 * missing or unparseable one, which score alike): anything that changes what
 * the run's replicates are drawn from (new gold, relabelled items, a replaced
 * solution, a resumed run that predicted more) changes it. (External ids are
 * unique per dataset, so no gold id repeats, as `compareCheckpoints` requires.)
 */
export async function loadCommonGoldOutcomes(db: Db, runs: readonly ComparableRun[]): Promise<CommonGoldOutcomes> {
  // Finished runs: counted once per set of runs and stored under the version of their rows and the dataset's.
  const version = await rowsVersion(db, { runIds: runs.map((r) => r.id), datasetIds: [runs[0]!.datasetId] });
  const runIds = runs.map((r) => r.id).sort().join(",");
  const stored = await storedUnderVersion(
    version,
    {
      read: async () => {
        const row = await db.goldOutcomeCounts.findUnique({ where: { runIds } });
        return row && { version: row.version, value: row.outcomes };
      },
      write: (version, outcomes) => db.goldOutcomeCounts.upsert({ where: { runIds }, create: { runIds, version, outcomes }, update: { version, outcomes } }),
    },
    async () => storedOutcomes(await countCommonGoldOutcomes(db, runs), runs),
  );
  return readStoredOutcomes(stored, runs);
}

/** `CommonGoldOutcomes` as JSON, each run's entry under its id (the order of the runs asked for may differ). */
interface StoredOutcomes {
  gold: number;
  subsets: string[];
  runs: Record<string, { classes: number[]; missing: number; unparseable: number; replicatesKey: string }>;
}

function storedOutcomes(outcomes: CommonGoldOutcomes, runs: readonly ComparableRun[]): StoredOutcomes {
  return {
    gold: outcomes.gold,
    subsets: outcomes.subsets,
    runs: Object.fromEntries(runs.map((run, i) => {
      const { counts, replicatesKey } = outcomes.runs[i]!;
      return [run.id, { classes: Array.from(counts.classes), missing: counts.missing, unparseable: counts.unparseable, replicatesKey }];
    })),
  };
}

function readStoredOutcomes(stored: StoredOutcomes, runs: readonly ComparableRun[]): CommonGoldOutcomes {
  return {
    gold: stored.gold,
    subsets: stored.subsets,
    runs: runs.map((run) => {
      const own = stored.runs[run.id]!;
      return { counts: { classes: Int32Array.from(own.classes), missing: own.missing, unparseable: own.unparseable }, replicatesKey: own.replicatesKey };
    }),
  };
}

async function countCommonGoldOutcomes(db: Db, runs: readonly ComparableRun[]): Promise<CommonGoldOutcomes> {
  const { sql, params } = commonGoldQuery(runs);
  // A hit is a parsed prediction equal to the label (codes below -1 never are); label -1 is an error-free solution.
  const classes = runs.map((_, i) => {
    const hit = `p${i} >= -1 AND p${i} = label`;
    return `json_build_array(
        count(*) FILTER (WHERE label <> -1 AND ${hit}), count(*) FILTER (WHERE label <> -1 AND NOT (${hit})),
        count(*) FILTER (WHERE label = -1 AND ${hit}), count(*) FILTER (WHERE label = -1 AND NOT (${hit})),
        count(*) FILTER (WHERE p${i} = ${NO_PREDICTION}), count(*) FILTER (WHERE p${i} = ${UNPARSEABLE_PREDICTION}))`;
  });
  // One ordered pass serves every key: the aggregates share their ORDER BY, so the rows are sorted once.
  const keys = runs.map(
    (_, i) =>
      `encode(sha256(convert_to(string_agg(id || E'\\t' || "externalId" || E'\\t' || label::text || E'\\t' || "resolvedSubset" || E'\\t' || CASE WHEN p${i} < -1 THEN 'none' ELSE p${i}::text END, E'\\n' ORDER BY "createdAt", id), 'UTF8')), 'hex') AS key${i}`,
  );
  const [row] = await wholeDatasetQuery<Array<Record<string, string> & { gold: number; bySubset: Array<{ subset: string; runs: number[][] }> | null }>>(
    db,
    `WITH gold AS MATERIALIZED (${sql})
     SELECT count(*)::int AS gold, ${keys.join(", ")},
            (SELECT json_agg(json_build_object('subset', subset, 'runs', runs)) FROM (
               SELECT "resolvedSubset" AS subset, json_build_array(${classes.join(", ")}) AS runs FROM gold GROUP BY 1) s) AS "bySubset"
       FROM gold`,
    ...params,
  );
  const bySubset = (row!.bySubset ?? []).sort((a, b) => a.subset.localeCompare(b.subset));
  return {
    gold: row!.gold,
    subsets: bySubset.map((s) => s.subset),
    runs: runs.map((_, i) => {
      const classes = new Int32Array(bySubset.length * 4);
      let missing = 0;
      let unparseable = 0;
      bySubset.forEach((s, k) => {
        const own = s.runs[i]!;
        classes.set(own.slice(0, 4), k * 4);
        missing += own[4]!;
        unparseable += own[5]!;
      });
      return { counts: { classes, missing, unparseable }, replicatesKey: row![`key${i}`]! };
    }),
  };
}

/**
 * The version of the stored rows of finished runs (and of the solutions of
 * datasets) that a stored compare result is computed from: each run's
 * finishedAt and each scope's count of RowsChange rows, which triggers append
 * for every statement that changes those rows once a run has finished. Null
 * when a run has not finished (its rows may still change, so nothing is
 * stored for it) or does not exist. The same scopes in any order give the same version.
 */
export async function rowsVersion(db: Db, scopes: { runIds: readonly string[]; datasetIds?: readonly string[] }): Promise<string | null> {
  const runs = await db.$queryRawUnsafe<Array<{ id: string; finishedAt: Date | null; changes: number }>>(
    `SELECT r.id, r."finishedAt", (SELECT count(*)::int FROM "RowsChange" c WHERE c."scopeId" = r.id) AS changes FROM "Run" r WHERE r.id = ANY($1::text[])`,
    [...scopes.runIds],
  );
  // In id order, so that the same runs asked for in another order (the compare page's either side) have one version.
  const parts: string[] = [];
  for (const id of [...scopes.runIds].sort()) {
    const run = runs.find((r) => r.id === id);
    if (!run?.finishedAt) return null;
    parts.push(`run ${id} finished ${run.finishedAt.toISOString()} changed ${run.changes}`);
  }
  for (const id of [...(scopes.datasetIds ?? [])].sort()) {
    const [row] = await db.$queryRawUnsafe<Array<{ changes: number }>>(`SELECT count(*)::int AS changes FROM "RowsChange" WHERE "scopeId" = $1`, id);
    parts.push(`dataset ${id} changed ${row!.changes}`);
  }
  return parts.join("; ");
}

/** Where one stored compare result lives: its row's version and JSON, and how to write both. */
export interface VersionedStore {
  read(): Promise<{ version: string; value: Prisma.JsonValue } | null>;
  write(version: string, value: Prisma.InputJsonValue): Promise<unknown>;
}

/**
 * A compare result read from its store while `version` (see `rowsVersion`)
 * stands, else counted anew and stored under it; nothing is read or stored
 * when `version` is null (a run not finished). `count` returns the stored form.
 */
export async function storedUnderVersion<T>(version: string | null, store: VersionedStore, count: () => Promise<T>): Promise<T> {
  if (!version) return count();
  const stored = await store.read();
  if (stored && stored.version === version) return stored.value as unknown as T;
  const value = await count();
  await store.write(version, value as unknown as Prisma.InputJsonValue);
  return value;
}
