import { judgeProtocolRef, prmbenchIntervals, processBenchIntervals, scorePrmbench, scoreProcessBench, subsetFromId, type PrmbenchItem, type ProcessBenchGold } from "@stepwiser/core";
import { expectedSimJudgeScores } from "@stepwiser/inference/sim";
import { prmbenchRunItems } from "../../judging/prmbench-predictions";
import type { Db } from "@stepwiser/db";
import type { z } from "zod";
import { segmentationJudgeRun } from "../../judging/judge-run";
import { judgeOutputCounts } from "../../judging/output-counts";
import { runPredictions } from "../../judging/predictions";
import { checkJudgeProtocol } from "../../judging/protocol-check";
import { judgeWithProtocol, solutionEvidenceColumns } from "../../judging/protocol-judge";
import { modelOf, usedEndpoint } from "../../kit/kind-facts";
import type { UnitRunKind } from "../../runs/run-kind";
import { benchmarkConfigSchema, benchmarkStoredConfigSchema, type BenchmarkConfig } from "./config";
import { benchmarkFormHints } from "./form-hints";
import { benchmarkResultColumns } from "./result-columns";
import { benchmarkSummarySchema } from "./summary";

/**
 * What a benchmark run is scored on: its gold solutions in file order (the
 * import's insertion order: the bootstrap's resamples depend on the order of the
 * items, so it must not be left to the query plan) and its predictions by
 * external id. The gold is every solution of the dataset with a source first
 * error and the run's segmentation; a run with a limit counts only the
 * solutions it predicted. The summary scores this, and a results page reading
 * a summary written before an interval was stored recomputes it from this.
 */
export async function benchmarkGold(db: Db, runId: string, config: Pick<BenchmarkConfig, "datasetId" | "segmentationMethod" | "limit">): Promise<{ gold: ProcessBenchGold[]; predictions: Map<string, number | null> }> {
  const gold: ProcessBenchGold[] = [];
  const predictions = new Map<string, number | null>();
  for await (const p of runPredictions(db, runId)) predictions.set(p.id, p.prediction);
  const solutions = await db.solution.findMany({
    where: { datasetId: config.datasetId, segmentations: { some: { method: config.segmentationMethod } }, sourceFirstErrorIndex: { not: null } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { externalId: true, sourceFirstErrorIndex: true, subset: true },
  });
  for (const t of solutions) if (predictions.has(t.externalId) || !config.limit) gold.push({ id: t.externalId, label: t.sourceFirstErrorIndex!, subset: t.subset ?? subsetFromId(t.externalId) });
  return { gold, predictions };
}

/**
 * A critic's index as the 32-bit column can hold it: an integer outside it is a wrong
 * prediction either way (no paragraph has that index), stored as unparseable rather than
 * failing the unit on the insert.
 */
function storablePrediction(prediction: number | null): number | null {
  return prediction !== null && prediction >= -(2 ** 31) && prediction < 2 ** 31 ? prediction : null;
}

export const benchmarkKind: UnitRunKind<BenchmarkConfig, z.output<typeof benchmarkSummarySchema>> = {
  kind: "benchmark",
  execution: "units",
  submitSchema: benchmarkConfigSchema,
  storedSchema: benchmarkStoredConfigSchema,
  summarySchema: benchmarkSummarySchema,
  formHints: benchmarkFormHints,
  endpoints: (config) => usedEndpoint("judge", config.judge),
  facts: (config) => [modelOf(config.judge, config.judgeEndpoint, "judge"), ...(config.protocol === "stepwiser-chunk" ? [] : [config.protocol]), `K=${config.samples}`],
  ...segmentationJudgeRun,

  async snapshot(db, config) {
    const dataset = await db.dataset.findUnique({ where: { id: config.datasetId }, select: { source: true } });
    // PRMBench counts every erroneous step, so every step is judged; its import segments by the item's steps.
    const prmbench = dataset?.source === PRMBENCH_SOURCE;
    const scoped = prmbench
      ? { ...config, scoring: "prmbench" as const, stopAtFirstNegative: false, segmentationMethod: config.segmentationMethod === "processbench-paragraphs" ? PRMBENCH_SEGMENTATION : config.segmentationMethod }
      : { ...config, scoring: "processbench" as const };
    const snapshot = await segmentationJudgeRun.snapshot(db, scoped);
    checkJudgeProtocol("benchmark", { ...snapshot, samplesField: "samples" }, snapshot.judge!, "judgeEndpoint");
    return snapshot;
  },

  async runUnit(ctx, segmentationId) {
    const { db, runId } = ctx;
    const done = await db.solutionPrediction.findFirst({ where: { runId, solution: { segmentations: { some: { id: segmentationId } } } }, select: { id: true } });
    if (done) return;
    const judged = await judgeWithProtocol(ctx, segmentationId);
    await db.solutionPrediction.createMany({
      data: [{ runId, solutionId: judged.solutionId, predictedFirstError: storablePrediction(judged.predictedFirstError), ...solutionEvidenceColumns(judged.solution) }],
      skipDuplicates: true,
    });
  },

  async summarize(ctx) {
    const { db, runId, config } = ctx;
    const { gold, predictions } = await benchmarkGold(db, runId, config);
    const score = scoreProcessBench(gold, predictions);
    return {
      protocol: judgeProtocolRef(config.protocol),
      promptTemplateId: config.protocol === "processbench-critic" ? config.criticPromptTemplateId : config.protocol === "stepwiser-chunk" ? (config.judgePromptTemplateId ?? null) : null,
      judge: config.judge?.model,
      subsets: score.subsets,
      average_f1: score.average_f1,
      subsets_in_average: score.subsets_in_average,
      average_is_partial: score.average_is_partial,
      // Percentile bootstrap over solutions: per subset within the subset, the average stratified by subset.
      ...processBenchIntervals(gold, predictions, config.bootstrap),
      unparseable: score.unparseable,
      missing: score.missing.length,
      // The judge's outputs: those cut at the generation limit apart from those that ended unreadable.
      judgeOutputs: await judgeOutputCounts(db, runId, config.protocol),
      ...(config.scoring === "prmbench" ? { prmbench: await prmbenchSummary(db, runId, config) } : {}),
      ...(await simulatorExpectation(db, config, gold)),
    };
  },

  resultColumns: async (_ctx, summary) => benchmarkResultColumns(summary),
};

/**
 * For a built-in simulated judge with independent errors, what the simulator's
 * configuration alone makes it score on these solutions (their chunk counts and
 * true first errors), so a results page can say why the figures are what they are.
 */
async function simulatorExpectation(db: Db, config: BenchmarkConfig, gold: ProcessBenchGold[]) {
  const model = config.judge?.model;
  if (!model || config.protocol !== "stepwiser-chunk" || config.scoring === "prmbench" || !config.stopAtFirstNegative) return {};
  if (expectedSimJudgeScores(model, [], { samples: config.samples, tiePolicy: config.tiePolicy }) === null) return {};
  const rows = await db.$queryRaw<Array<{ externalId: string; chunks: number }>>`
    SELECT t."externalId", count(c.id)::int AS chunks
      FROM "Solution" t JOIN "Segmentation" g ON g."solutionId" = t.id AND g.method = ${config.segmentationMethod}
      JOIN "Chunk" c ON c."segmentationId" = g.id
     WHERE t."datasetId" = ${config.datasetId} AND t."sourceFirstErrorIndex" IS NOT NULL
     GROUP BY t."externalId"`;
  const chunks = new Map(rows.map((r) => [r.externalId, r.chunks]));
  const solutions = gold.filter((g) => chunks.has(g.id)).map((g) => ({ chunks: chunks.get(g.id)!, trueFirstError: g.label }));
  const expectation = expectedSimJudgeScores(model, solutions, { samples: config.samples, tiePolicy: config.tiePolicy });
  return expectation ? { simulatorExpectation: expectation } : {};
}

/** A PRMBench import's dataset source and segmentation method. */
const PRMBENCH_SOURCE = "prmbench";
const PRMBENCH_SEGMENTATION = "prmbench-steps";

/** PRMBench's score of the run: every item's step labels as the run read them, scored as PRMBench's evaluator scores them. */
async function prmbenchSummary(db: Db, runId: string, config: BenchmarkConfig) {
  const items: PrmbenchItem[] = [];
  const predictions: Array<{ id: string; labels: boolean[] }> = [];
  let invalid = 0;
  for await (const { item, reading } of prmbenchRunItems(db, { runId, datasetId: config.datasetId, segmentationMethod: config.segmentationMethod, protocol: config.protocol, tiePolicy: config.tiePolicy })) {
    if (reading === null && config.limit) continue;
    items.push(item);
    if (reading && "labels" in reading) predictions.push({ id: item.id, labels: reading.labels });
    else if (reading) invalid += 1;
  }
  const scoring = scorePrmbench(items, predictions);
  const intervals = prmbenchIntervals(items, predictions, { resamples: config.bootstrap.resamples, seed: config.bootstrap.seed });
  return { ...scoring.score, ci95: intervals.total, by_class_ci95: intervals.by_class, invalid, missing: scoring.missing.length - invalid };
}
