import type { ServiceArgs } from "../args";
import { inspectSolution } from "./inspect";

/**
 * A solution's chunks, each with everything the runs stored about it: the
 * Q-value after the chunk from every annotate run, every label those runs
 * stored with its confidence, and every judge sample's verdict and rationale.
 * The inspector's data (`inspectSolution`), turned from per-run columns into
 * per-chunk rows; `runs` describes each run the rows name.
 */
export async function solutionChunks(args: ServiceArgs<{ id: string }>) {
  const { annotateRuns, judgements, solutionJudgements, segmentations, ...solution } = await inspectSolution(args);
  const describe = ({ runId, kind, createdAt, label, strategy, rollouts, judgeModel, policyModel }: Pick<(typeof annotateRuns)[number], "runId" | "kind" | "createdAt" | "label" | "strategy" | "rollouts" | "judgeModel" | "policyModel">) => ({
    runId,
    kind,
    createdAt,
    label,
    strategy,
    rollouts,
    judgeModel,
    policyModel,
  });
  const runs = [...new Map([...annotateRuns, ...judgements, ...solutionJudgements].map((r) => [r.runId, describe(r)])).values()];
  return {
    ...solution,
    runs,
    /** Judges that answer per solution (the critic, ThinkPRM, outcome models): each run's prediction and samples. */
    solutionJudgements: solutionJudgements.map((j) => ({ runId: j.runId, promptTemplateId: j.promptTemplateId, predictedFirstError: j.predictedFirstError, score: j.score, samples: j.samples })),
    segmentations: segmentations.map((segmentation) => {
      const annotateRunsHere = annotateRuns.filter((a) => a.segmentationId === segmentation.id);
      return {
        id: segmentation.id,
        method: segmentation.method,
        chunks: segmentation.chunks.map((chunk) => ({
          ...chunk,
          qValues: annotateRunsHere.flatMap((a) =>
            a.values
              .filter((v) => v.prefixLength === chunk.index + 1)
              .map((v) => ({ runId: a.runId, qValue: v.qValue, rollouts: v.rolloutCount, correct: v.correctCount })),
          ),
          labels: annotateRunsHere.flatMap((a) =>
            a.labels.filter((l) => l.chunkId === chunk.id).map((l) => ({ runId: a.runId, rule: l.rule, paramsKey: l.paramsKey, label: l.label, confidence: l.confidence })),
          ),
          verdicts: judgements.flatMap((j) =>
            j.samples
              .filter((s) => s.chunkId === chunk.id)
              .map((s) => ({ runId: j.runId, sampleIndex: s.sampleIndex, verdict: s.verdict, rationale: s.rationale, promptTemplateId: s.promptTemplateId, truncated: s.truncated })),
          ),
        })),
      };
    }),
  };
}
