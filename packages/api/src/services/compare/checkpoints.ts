import { averageCoverage, checkpointReplicates, compareCheckpointCounts, compareCheckpoints, goldSubset, InputError, JUDGE_PROTOCOLS, packReplicates, PUBLISHED_PRMBENCH_PRMSCORE, PUBLISHED_PROCESSBENCH_F1, unpackReplicates, type CheckpointComparison, type RunReplicates } from "@stepwiser/core";
import { DEFAULT_SIM_MODELS } from "@stepwiser/inference/sim";
import { createHash } from "node:crypto";
import type { Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { loadCommonGoldOutcomes } from "./gold-outcomes";
import { benchmarkReadings } from "./prmbench";
import { FINISHED_STATUSES, loadCommonGold, loadComparableRuns, type ComparableRun, type CommonGold } from "./runs";

/**
 * `loadCommonGoldOutcomes`' replicatesKey computed from loaded gold: the same
 * SHA-256 over the same text (items in order, one line each, no newline after
 * the last), so replicates drawn from the loaded rows are stored under the key
 * of exactly those rows.
 */
export function replicatesKey(gold: CommonGold["gold"], predictions: ReadonlyMap<string, number | null>): string {
  const hash = createHash("sha256");
  gold.forEach((item, i) => {
    const prediction = predictions.get(item.id);
    hash.update(`${i ? "\n" : ""}${item.solutionId}\t${item.id}\t${item.label}\t${goldSubset(item)}\t${prediction === undefined || prediction === null ? "none" : prediction}`);
  });
  return hash.digest("hex");
}

/**
 * The `goldKey` a run's replicates are stored under: how they were drawn, then the
 * SHA-256 of what they were drawn from. Replicates are drawn with the average's
 * resamples stratified by subset (`checkpointReplicates`); those stored before,
 * whose average resampled all gold items at once, sit under the bare SHA-256 and
 * are never read again.
 */
export function storedReplicatesKey(replicatesKey: string): string {
  return `stratified-average:${replicatesKey}`;
}

/** Stored replicates of the finished runs under their keys, for these resamples and seed. */
async function storedReplicates(db: Db, runs: readonly ComparableRun[], keys: readonly string[], meta: { n: number; resamples: number; seed: number }): Promise<Map<string, RunReplicates>> {
  const finished = runs.flatMap((run, i) => (FINISHED_STATUSES.has(run.status) ? [{ runId: run.id, goldKey: storedReplicatesKey(keys[i]!) }] : []));
  const rows = finished.length === 0 ? [] : await db.bootstrapReplicates.findMany({ where: { OR: finished, resamples: meta.resamples, seed: String(meta.seed) } });
  return new Map(rows.map((row) => [row.runId, unpackReplicates(row.values, { n: meta.n, subsets: row.subsets, resamples: meta.resamples, seed: meta.seed })]));
}

/**
 * The comparison when some run has no stored replicates: the gold solutions
 * with every run's prediction are read, the finished runs' missing replicates
 * drawn and stored under the key of the rows just read (so a row written
 * meanwhile never gets replicates it was not drawn from), and unfinished runs,
 * whose predictions may still change, drawn by the comparison alone.
 */
async function compareFromGold(
  db: Db,
  runs: readonly ComparableRun[],
  stored: { keys: readonly string[]; replicates: Map<string, RunReplicates> },
  input: { baselineRunId: string; resamples: number; seed: number },
): Promise<CheckpointComparison> {
  const { gold, predictions } = await loadCommonGold(db, runs);
  if (gold.length === 0) throw new InputError("these runs share no solution with a gold first error: nothing to compare on");
  const replicates = new Map<string, RunReplicates>();
  for (const [i, run] of runs.entries()) {
    const own = predictions.get(run.id)!;
    const key = replicatesKey(gold, own);
    const kept = stored.replicates.get(run.id);
    if (kept && key === stored.keys[i]) {
      replicates.set(run.id, kept);
      continue;
    }
    if (!FINISHED_STATUSES.has(run.status)) continue;
    const drawn = checkpointReplicates({ gold, predictions: own, resamples: input.resamples, seed: input.seed });
    await db.bootstrapReplicates.createMany({
      data: [{ runId: run.id, goldKey: storedReplicatesKey(key), resamples: input.resamples, seed: String(input.seed), subsets: drawn.subsets, values: packReplicates(drawn) }],
      skipDuplicates: true,
    });
    replicates.set(run.id, drawn);
  }
  return compareCheckpoints({
    gold,
    runs: runs.map((run) => ({ id: run.id, predictions: predictions.get(run.id)! })),
    baselineId: input.baselineRunId,
    resamples: input.resamples,
    seed: input.seed,
    replicates,
  });
}

/**
 * ProcessBench scores of 2–8 runs on the same gold solutions (see
 * `loadCommonGold`), each with 95 % percentile-bootstrap intervals per subset
 * and on average (stratified by subset), and each non-baseline run's
 * paired-bootstrap difference from the baseline with its interval and p-value.
 * `average` says which subsets the averages are over and whether that is a
 * partial average. Each run names the judge protocol it spoke; `published` are
 * the reference F1s published elsewhere (per subset where the source gives them,
 * and the source's four-subset average, each row with its table; not measured
 * here), for the leaderboard's reference block.
 *
 * `benchmark` says whether the dataset is a PRMBench import: there every run's
 * first-error scores are a reading of each item's first error step, not
 * ProcessBench's F1, and the leaderboard ranks by PRMScore instead. Each run
 * carries its PRMBench figures (`prmbench`: its own, or the same judge's
 * PRMBench run's, named) and on a PRMBench comparison the same judge's
 * ProcessBench average F1 (`sameJudgeProcessBench`, named); `publishedPrmbench`
 * are PRMScores published by PRMBench's authors, apart from the measured ones.
 */
const SIMULATED_MODEL_IDS = new Set(DEFAULT_SIM_MODELS.map((m) => m.id));

export async function compareCheckpointRuns({ db, input }: ServiceArgs<{ runIds: string[]; baselineRunId: string; resamples: number; seed: number }>) {
  if (!input.runIds.includes(input.baselineRunId)) {
    throw new InputError(`the baseline ${input.baselineRunId} must be one of the compared runs`);
  }
  const runs = await loadComparableRuns(db, input.runIds);
  // Counted in the database: each run's outcomes per subset and the key of its replicates. When every run's
  // replicates are stored (finished runs after their first comparison on this gold), that is all the comparison
  // needs; otherwise the gold solutions are read and the missing replicates drawn.
  const outcomes = await loadCommonGoldOutcomes(db, runs);
  if (outcomes.gold === 0) {
    throw new InputError("these runs share no solution with a gold first error: nothing to compare on");
  }
  const meta = { n: outcomes.gold, resamples: input.resamples, seed: input.seed };
  const keys = outcomes.runs.map((r) => r.replicatesKey);
  const stored = await storedReplicates(db, runs, keys, meta);
  const comparison = runs.every((run) => stored.has(run.id))
    ? compareCheckpointCounts({
        subsets: outcomes.subsets,
        gold: outcomes.gold,
        runs: runs.map((run, i) => ({ id: run.id, counts: outcomes.runs[i]!.counts })),
        baselineId: input.baselineRunId,
        resamples: input.resamples,
        seed: input.seed,
        replicates: stored,
      })
    : await compareFromGold(db, runs, { keys, replicates: stored }, input);
  const dataset = await db.dataset.findUnique({ where: { id: runs[0]!.datasetId }, select: { id: true, name: true, source: true } });
  const readings = await benchmarkReadings(db, runs, dataset?.source ?? null);
  return {
    dataset: dataset && { id: dataset.id, name: dataset.name },
    benchmark: readings.benchmark,
    subsets: comparison.subsets,
    average: averageCoverage(comparison.subsets),
    gold: comparison.gold,
    baselineRunId: comparison.baselineId,
    resamples: comparison.resamples,
    confidence: comparison.confidence,
    seed: input.seed,
    runs: runs.map((run, i) => ({
      run,
      // The version the run recorded: a run made under an older version of its protocol keeps reading as that one.
      protocol: { id: run.protocol, version: Number(run.protocolRef.split("@v")[1]), label: JUDGE_PROTOCOLS[run.protocol].label, ref: run.protocolRef, template: run.promptTemplateId },
      ...comparison.runs[i]!,
      ...readings.runs[i]!,
      /** Its judge is a model of the built-in simulated cluster: its figures follow from the model's configured accuracy, not from a real judge. */
      simulatedJudge: run.judgeModel !== null && SIMULATED_MODEL_IDS.has(run.judgeModel),
    })),
    published: PUBLISHED_PROCESSBENCH_F1,
    publishedPrmbench: PUBLISHED_PRMBENCH_PRMSCORE,
  };
}
