import { InputError, NotFoundError, subsetFromId, type FirstErrorPrediction, type ProcessBenchGold, type TiePolicy, JUDGE_PROTOCOLS, type JudgeProtocolId } from "@stepwiser/core";
import type { Db, RunKind, RunStatus } from "@stepwiser/db";
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
export function comparableRun(run: { id: string; kind: RunKind; name: string | null; status: RunStatus; datasetId: string | null; createdAt: Date; config: unknown }): ComparableRun {
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
    chunkSamples: hasChunkSamples(config.protocol),
    partial: config.limit !== undefined || ("trajectoryIds" in config && (config.trajectoryIds?.length ?? 0) > 0),
    name: runName(run),
    label: describeRun(run),
  };
}

const runSelect = { id: true, kind: true, name: true, status: true, datasetId: true, createdAt: true, config: true } as const;

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

const PAGE = 5000;

/** Solution-level predictions keyed by trajectory id: benchmark → SolutionPrediction, judge → TrajectoryRunStat.firstNegative. */
export async function loadRunPredictions(db: Db, run: ComparableRun): Promise<Map<string, FirstErrorPrediction>> {
  const predictions = new Map<string, FirstErrorPrediction>();
  let cursor: string | undefined;
  for (;;) {
    const page =
      run.kind === "benchmark"
        ? (
            await db.solutionPrediction.findMany({
              where: { runId: run.id, ...(cursor ? { trajectoryId: { gt: cursor } } : {}) },
              orderBy: { trajectoryId: "asc" },
              take: PAGE,
              select: { trajectoryId: true, predictedFirstError: true },
            })
          ).map((p) => [p.trajectoryId, p.predictedFirstError] as const)
        : (
            await db.trajectoryRunStat.findMany({
              where: { runId: run.id, ...(cursor ? { trajectoryId: { gt: cursor } } : {}) },
              orderBy: { trajectoryId: "asc" },
              take: PAGE,
              select: { trajectoryId: true, firstNegative: true },
            })
          ).map((s) => [s.trajectoryId, s.firstNegative] as const);
    for (const [trajectoryId, prediction] of page) predictions.set(trajectoryId, prediction);
    if (page.length < PAGE) return predictions;
    cursor = page[page.length - 1]![0];
  }
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
  const datasetId = runs[0]!.datasetId;
  const labelled = await db.trajectory.findMany({
    where: { datasetId, sourceFirstErrorIndex: { not: null } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, externalId: true, subset: true, sourceFirstErrorIndex: true },
  });
  const segmented = new Map<string, Set<string>>();
  for (const method of new Set(runs.filter((r) => !r.partial).map((r) => r.segmentationMethod))) {
    const rows = await db.segmentation.findMany({ where: { method, trajectory: { datasetId } }, select: { trajectoryId: true } });
    segmented.set(method, new Set(rows.map((r) => r.trajectoryId)));
  }
  const byTrajectory = new Map<string, Map<string, FirstErrorPrediction>>();
  for (const run of runs) byTrajectory.set(run.id, await loadRunPredictions(db, run));

  const inScope = (run: ComparableRun, trajectoryId: string) =>
    run.partial ? byTrajectory.get(run.id)!.has(trajectoryId) : segmented.get(run.segmentationMethod)!.has(trajectoryId);
  const gold: GoldSolution[] = labelled
    .filter((t) => runs.every((run) => inScope(run, t.id)))
    .map((t) => ({ id: t.externalId, label: t.sourceFirstErrorIndex!, subset: t.subset ?? subsetFromId(t.externalId), trajectoryId: t.id }));
  const predictions = new Map<string, Map<string, FirstErrorPrediction>>();
  for (const run of runs) {
    const own = byTrajectory.get(run.id)!;
    const byExternal = new Map<string, FirstErrorPrediction>();
    for (const g of gold) if (own.has(g.trajectoryId)) byExternal.set(g.id, own.get(g.trajectoryId)!);
    predictions.set(run.id, byExternal);
  }
  return { gold, predictions };
}
