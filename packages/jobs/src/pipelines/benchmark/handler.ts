import { segmentationJudgeRun } from "../judge/judge-run";
import { judgeProtocolRef, bootstrapCI, scoreProcessBench, scorePredictedSolutions, STEPWISER_JUDGE_PROMPT, subsetFromId, type ProcessBenchGold } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { RunKindHandler } from "../../runs/run-kind";
import { checkJudgeProtocol } from "../judge/protocol-check";
import { judgeWithProtocol, solutionEvidenceColumns } from "../judge/protocol-judge";
import { benchmarkConfigSchema, type BenchmarkConfig } from "./config";

const PAGE = 500;

/** Every prediction of a run as the `processbench score` input: `{ id, prediction }` per solution. */
export async function* runPredictions(db: Db, runId: string): AsyncGenerator<{ id: string; prediction: number | null }> {
  let cursor: string | undefined;
  for (;;) {
    const page = await db.solutionPrediction.findMany({
      where: { runId },
      orderBy: { id: "asc" },
      take: PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: { id: true, predictedFirstError: true, trajectory: { select: { externalId: true } } },
    });
    for (const p of page) yield { id: p.trajectory.externalId, prediction: p.predictedFirstError };
    if (page.length < PAGE) return;
    cursor = page[page.length - 1]!.id;
  }
}

/**
 * A critic's index as the 32-bit column can hold it: an integer outside it is a wrong
 * prediction either way (no paragraph has that index), stored as unparseable rather than
 * failing the unit on the insert.
 */
function storablePrediction(prediction: number | null): number | null {
  return prediction !== null && prediction >= -(2 ** 31) && prediction < 2 ** 31 ? prediction : null;
}

export const benchmarkHandler: RunKindHandler<BenchmarkConfig> = {
  kind: "benchmark",
  configSchema: benchmarkConfigSchema,
  ...segmentationJudgeRun,

  async snapshot(db, config) {
    const snapshot = await segmentationJudgeRun.snapshot(db, config);
    checkJudgeProtocol("benchmark", { ...snapshot, samplesField: "samples" }, snapshot.judge!, "judgeEndpoint");
    return snapshot;
  },

  async runUnit(ctx, segmentationId) {
    const { db, runId } = ctx;
    const done = await db.solutionPrediction.findFirst({ where: { runId, trajectory: { segmentations: { some: { id: segmentationId } } } }, select: { id: true } });
    if (done) return;
    const judged = await judgeWithProtocol(ctx, segmentationId);
    await db.solutionPrediction.createMany({
      data: [{ runId, trajectoryId: judged.trajectoryId, predictedFirstError: storablePrediction(judged.predictedFirstError), ...solutionEvidenceColumns(judged.solution) }],
      skipDuplicates: true,
    });
  },

  async summarize(ctx) {
    const { db, runId, config } = ctx;
    const gold: ProcessBenchGold[] = [];
    const predictions = new Map<string, number | null>();
    for await (const p of runPredictions(db, runId)) predictions.set(p.id, p.prediction);
    // File order (the import's insertion order): the bootstrap's resamples depend on
    // the order of the items, so it must not be left to the query plan.
    const trajectories = await db.trajectory.findMany({
      where: { datasetId: config.datasetId, segmentations: { some: { method: config.segmentationMethod } }, sourceFirstErrorIndex: { not: null } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { externalId: true, sourceFirstErrorIndex: true, subset: true },
    });
    for (const t of trajectories) if (predictions.has(t.externalId) || !config.limit) gold.push({ id: t.externalId, label: t.sourceFirstErrorIndex!, subset: t.subset ?? subsetFromId(t.externalId) });
    const score = scoreProcessBench(gold, predictions);
    // Bootstrap over solutions, within each subset, so an interval reflects that subset's size.
    const intervals: Record<string, { lower: number; upper: number }> = {};
    for (const subset of Object.keys(score.subsets)) {
      const items = gold.filter((g) => (g.subset ?? subsetFromId(g.id)) === subset).map((g) => ({ label: g.label, prediction: predictions.get(g.id) }));
      const ci = bootstrapCI(items, (sample) => scorePredictedSolutions(sample).f1, { resamples: config.bootstrap.resamples, seed: config.bootstrap.seed });
      intervals[subset] = { lower: ci.lower, upper: ci.upper };
    }
    return {
      protocol: judgeProtocolRef(config.protocol),
      promptTemplateId: config.protocol === "processbench-critic" ? config.criticPromptTemplateId : config.protocol === "stepwiser-chunk" ? STEPWISER_JUDGE_PROMPT.id : null,
      judge: config.judge?.model,
      subsets: score.subsets,
      average_f1: score.average_f1,
      f1_ci95: intervals,
      unparseable: score.unparseable,
      missing: score.missing.length,
    };
  },
};
