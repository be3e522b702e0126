import { checkpointReplicates, compareCheckpoints, InputError, JUDGE_PROTOCOLS, judgeProtocolRef, packReplicates, PUBLISHED_PROCESSBENCH_F1, unpackReplicates, type RunReplicates } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { FINISHED_STATUSES, goldDigest, loadCommonGold, loadComparableRuns, type ComparableRun, type CommonGold } from "./runs";


/**
 * What a run's replicates are drawn from: the gold items and the run's prediction on each. Anything that changes
 * them (new gold, relabelled items, a resumed run that judged more) gives another key, so a stored row never
 * answers for data it was not drawn from.
 */
function replicatesKey(gold: CommonGold["gold"], predictions: ReadonlyMap<string, number | null>): string {
  return goldDigest(gold, (item) => String(predictions.get(item.id) ?? "none"));
}

/**
 * Stored replicates of the finished runs on this gold, resamples and seed; a finished run without them has its
 * replicates drawn now and stored, so every later comparison skips its draws. Unfinished runs (whose predictions
 * may still change) are left to the comparison, which draws them.
 */
async function finishedRunReplicates(db: Db, runs: readonly ComparableRun[], { gold, predictions }: CommonGold, resamples: number, seed: number): Promise<Map<string, RunReplicates>> {
  const finished = runs.filter((run) => FINISHED_STATUSES.has(run.status));
  const keys = new Map(finished.map((run) => [run.id, replicatesKey(gold, predictions.get(run.id)!)]));
  const rows = finished.length === 0 ? [] : await db.bootstrapReplicates.findMany({
    where: { OR: finished.map((run) => ({ runId: run.id, goldKey: keys.get(run.id)! })), resamples, seed: String(seed) },
  });
  const replicates = new Map<string, RunReplicates>();
  for (const row of rows) replicates.set(row.runId, unpackReplicates(row.values, { n: gold.length, subsets: row.subsets, resamples, seed }));
  for (const run of finished) {
    if (replicates.has(run.id)) continue;
    const key = keys.get(run.id)!;
    const drawn = checkpointReplicates({ gold, predictions: predictions.get(run.id)!, resamples, seed });
    await db.bootstrapReplicates.createMany({
      data: [{ runId: run.id, goldKey: key, resamples, seed: String(seed), subsets: drawn.subsets, values: packReplicates(drawn) }],
      skipDuplicates: true,
    });
    replicates.set(run.id, drawn);
  }
  return replicates;
}

/**
 * ProcessBench scores of 2–8 runs on the same gold solutions (see
 * `loadCommonGold`), each with 95 % percentile-bootstrap intervals per subset
 * and on average, and each non-baseline run's paired-bootstrap difference from
 * the baseline with its interval and p-value. Each run names the judge protocol it
 * spoke; `published` are the reference F1s published elsewhere (average over the four
 * subsets only, not measured here), for the leaderboard's reference block.
 */
export async function compareCheckpointRuns({ db, input }: ServiceArgs<{ runIds: string[]; baselineRunId: string; resamples: number; seed: number }>) {
  if (!input.runIds.includes(input.baselineRunId)) {
    throw new InputError(`the baseline ${input.baselineRunId} must be one of the compared runs`);
  }
  const runs = await loadComparableRuns(db, input.runIds);
  const { gold, predictions } = await loadCommonGold(db, runs);
  if (gold.length === 0) {
    throw new InputError("these runs share no solution with a gold first error: nothing to compare on");
  }
  const replicates = await finishedRunReplicates(db, runs, { gold, predictions }, input.resamples, input.seed);
  const comparison = compareCheckpoints({
    gold,
    runs: runs.map((run) => ({ id: run.id, predictions: predictions.get(run.id)! })),
    baselineId: input.baselineRunId,
    resamples: input.resamples,
    seed: input.seed,
    replicates,
  });
  const dataset = await db.dataset.findUnique({ where: { id: runs[0]!.datasetId }, select: { id: true, name: true } });
  return {
    dataset,
    subsets: comparison.subsets,
    gold: comparison.gold,
    baselineRunId: comparison.baselineId,
    resamples: comparison.resamples,
    confidence: comparison.confidence,
    seed: input.seed,
    runs: runs.map((run, i) => ({
      run,
      protocol: { id: run.protocol, version: JUDGE_PROTOCOLS[run.protocol].version, label: JUDGE_PROTOCOLS[run.protocol].label, ref: judgeProtocolRef(run.protocol) },
      ...comparison.runs[i]!,
    })),
    published: PUBLISHED_PROCESSBENCH_F1,
  };
}
