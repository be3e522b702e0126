import { InputError, majorityVerdict, NotFoundError, subsetFromId, type Verdict } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { loadComparableRuns } from "./runs";

/**
 * One solution as the compared runs saw it: its chunks, and per chunk each
 * run's judge samples (verdict and rationale) and majority vote, lined up by
 * chunk index for a side-by-side view; each run's solution-level prediction
 * (and a critic's whole answer). Chunks are those of the first run's
 * segmentation; a run on another segmentation is lined up by chunk index.
 */
export async function compareItem({ db, input }: ServiceArgs<{ solutionId: string; runIds: string[] }>) {
  const runs = await loadComparableRuns(db, input.runIds);
  const solution = await db.solution.findUnique({
    where: { id: input.solutionId },
    select: {
      id: true,
      externalId: true,
      subset: true,
      datasetId: true,
      sourceFirstErrorIndex: true,
      problem: { select: { text: true } },
      segmentations: { select: { id: true, method: true, chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } } } },
    },
  });
  if (!solution) throw new NotFoundError(`solution ${input.solutionId} does not exist`);
  if (solution.datasetId !== runs[0]!.datasetId) throw new InputError(`solution ${input.solutionId} is not on the runs' dataset`);

  const segmentationOf = (method: string) => solution.segmentations.find((s) => s.method === method) ?? null;
  const shown = segmentationOf(runs[0]!.segmentationMethod) ?? solution.segmentations[0] ?? null;
  const allChunkIds = solution.segmentations.flatMap((s) => s.chunks.map((c) => c.id));
  const [samples, predictions, stats] = await Promise.all([
    db.judgeSample.findMany({
      where: { runId: { in: input.runIds }, chunkId: { in: allChunkIds } },
      orderBy: [{ sampleIndex: "asc" }],
      select: { runId: true, chunkId: true, sampleIndex: true, verdict: true, rationale: true },
    }),
    db.solutionPrediction.findMany({ where: { runId: { in: input.runIds }, solutionId: solution.id }, select: { runId: true, predictedFirstError: true, output: true } }),
    db.solutionRunStat.findMany({ where: { runId: { in: input.runIds }, solutionId: solution.id }, select: { runId: true, firstNegative: true } }),
  ]);

  const perRun = runs.map((run) => {
    const segmentation = segmentationOf(run.segmentationMethod);
    const indexOf = new Map(segmentation?.chunks.map((c) => [c.id, c.index]) ?? []);
    const byIndex = new Map<number, Array<{ sampleIndex: number; verdict: Verdict; rationale: string }>>();
    for (const s of samples) {
      if (s.runId !== run.id || !indexOf.has(s.chunkId)) continue;
      const index = indexOf.get(s.chunkId)!;
      byIndex.set(index, [...(byIndex.get(index) ?? []), { sampleIndex: s.sampleIndex, verdict: s.verdict, rationale: s.rationale }]);
    }
    const stored = run.kind === "benchmark" ? predictions.find((p) => p.runId === run.id) : undefined;
    const stat = run.kind === "judge" ? stats.find((s) => s.runId === run.id) : undefined;
    return {
      run,
      /** undefined: the run has no prediction for this solution; null: unparseable. */
      prediction: run.kind === "benchmark" ? stored?.predictedFirstError : stat?.firstNegative,
      criticOutput: stored?.output ?? null,
      alignedWithShownChunks: segmentation !== null && segmentation.id === shown?.id,
      byIndex,
    };
  });

  return {
    solution: {
      id: solution.id,
      externalId: solution.externalId,
      subset: solution.subset ?? subsetFromId(solution.externalId),
      datasetId: solution.datasetId,
      gold: solution.sourceFirstErrorIndex,
      problem: solution.problem.text,
      segmentationMethod: shown?.method ?? null,
    },
    runs: perRun.map(({ byIndex: _unused, ...rest }) => ({ ...rest, prediction: rest.prediction === undefined ? null : rest.prediction, predicted: rest.prediction !== undefined })),
    chunks: (shown?.chunks ?? []).map((chunk) => ({
      index: chunk.index,
      text: chunk.text,
      judgements: perRun.map(({ run, byIndex }) => {
        const list = byIndex.get(chunk.index) ?? [];
        const vote = list.length ? majorityVerdict(list.map((s) => s.verdict), run.tiePolicy) : null;
        return { runId: run.id, samples: list, vote: vote ? { verdict: vote.verdict, positive: vote.positive, negative: vote.negative, unparseable: vote.unparseable } : null };
      }),
    })),
  };
}
