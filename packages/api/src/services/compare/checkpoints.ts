import { compareCheckpoints, InputError, JUDGE_PROTOCOLS, judgeProtocolRef, PUBLISHED_PROCESSBENCH_F1 } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { loadCommonGold, loadComparableRuns } from "./runs";

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
  const comparison = compareCheckpoints({
    gold,
    runs: runs.map((run) => ({ id: run.id, predictions: predictions.get(run.id)! })),
    baselineId: input.baselineRunId,
    resamples: input.resamples,
    seed: input.seed,
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
