import path from "node:path";
import { labelRuleKey, labelRuleParamsKey, paperLabelRuleGrid, type LabelRule } from "@stepwiser/core";
import { writeBenchmarkReport } from "@stepwiser/config/bench";
import { startBenchEnvironment } from "./bench-environment";
import type { Db } from "@stepwiser/db";
import { annotateHandler, createSimWorldDataset, executeRun, relabelAnnotateRun, RUN_HANDLERS, DB_RULE } from "../src";

/**
 * Annotation on the simulated world, where every solution's true first error is
 * known: (1) how well each label rule's implied first error finds it, (2) what the
 * cheaper sampling strategies cost against `fixed` and whether they agree with it.
 */
const PROBLEMS = 200;
const M = 16;
const env = await startBenchEnvironment();
const { db, cluster, endpoints } = env;

async function annotate(strategy: "fixed" | "early-stop" | "first-error", datasetId: string, labelRules: LabelRule[]) {
  const config = annotateHandler.configSchema.parse({ datasetId, policyEndpoint: "policy", rollouts: M, seed: 11, strategy, labelRules, concurrency: 64 });
  const snapshot = await annotateHandler.snapshot(db, config);
  const run = await db.run.create({ data: { kind: "annotate", config: snapshot as object, datasetId } });
  const started = performance.now();
  await executeRun(db, run.id, RUN_HANDLERS, { endpoints });
  const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
  if (done.status !== "completed") throw new Error(`${strategy} run ended ${done.status}: ${done.error}`);
  return { id: run.id, seconds: (performance.now() - started) / 1000, rollouts: await db.rollout.count({ where: { runId: run.id } }), tokens: Number(done.completionTokens), requests: done.requests };
}

/** First Negative chunk per solution (segmentation id → index or -1) under one rule. */
async function impliedFirstErrors(db: Db, runId: string, rule: LabelRule): Promise<Map<string, number>> {
  const rows = await db.chunkLabel.findMany({
    where: { runId, rule: DB_RULE[rule.rule], paramsKey: labelRuleParamsKey(rule), label: "Negative" },
    select: { chunk: { select: { index: true, segmentationId: true } } },
  });
  const first = new Map<string, number>();
  for (const { chunk } of rows) first.set(chunk.segmentationId, Math.min(first.get(chunk.segmentationId) ?? Infinity, chunk.index));
  return first;
}

try {
  await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 256 } });
  const { datasetId } = await createSimWorldDataset(db, { name: "bench", problems: PROBLEMS, seed: 1000 });
  const solutions = await db.segmentation.findMany({ where: { trajectory: { datasetId } }, select: { id: true, trajectory: { select: { sourceFirstErrorIndex: true } }, _count: { select: { chunks: true } } } });
  const truth = new Map(solutions.map((s) => [s.id, s.trajectory.sourceFirstErrorIndex ?? -1]));

  const fixed = await annotate("fixed", datasetId, [{ rule: "abs-q" }]);
  const grid = paperLabelRuleGrid();
  await relabelAnnotateRun(db, fixed.id, grid);
  const early = await annotate("early-stop", datasetId, [{ rule: "abs-q" }]);
  const search = await annotate("first-error", datasetId, [{ rule: "abs-q" }]);

  // (1) label quality
  const qualityRows = [];
  for (const rule of grid) {
    const implied = await impliedFirstErrors(db, fixed.id, rule);
    let predictedErrors = 0;
    let trueErrors = 0;
    let exactOnPredicted = 0;
    let exactOnTrue = 0;
    for (const [id, trueIndex] of truth) {
      const predicted = implied.get(id) ?? -1;
      if (predicted !== -1) predictedErrors += 1;
      if (trueIndex !== -1) trueErrors += 1;
      if (predicted !== -1 && predicted === trueIndex) exactOnPredicted += 1;
      if (trueIndex !== -1 && predicted === trueIndex) exactOnTrue += 1;
    }
    const precision = predictedErrors ? exactOnPredicted / predictedErrors : 0;
    const recall = trueErrors ? exactOnTrue / trueErrors : 0;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    qualityRows.push({ metric: labelRuleKey(rule), value: `precision ${precision.toFixed(3)} · recall ${recall.toFixed(3)} · F1 ${f1.toFixed(3)}` });
  }
  const withErrors = [...truth.values()].filter((t) => t !== -1).length;
  writeBenchmarkReport({
    name: "label-quality",
    bench: "annotation",
    title: "Label rules against the simulated world's true first error",
    method:
      `${solutions.length} sim-policy solutions (error rate 0.15, recovery 0.1; ${withErrors} with a true error) annotated with M = ${M} rollouts per prefix (strategy fixed); every rule of the paper's grid relabels the same stored Q-values. ` +
      "A rule's implied first error is its first Negative chunk. Precision: share of solutions it flags whose flagged chunk is the true first error; recall: share of solutions with a true error whose first error it finds exactly.",
    rows: qualityRows,
  });

  // (2) cost and agreement
  const fixedAbs = await impliedFirstErrors(db, fixed.id, { rule: "abs-q" });
  const earlyAbs = await impliedFirstErrors(db, early.id, { rule: "abs-q" });
  const searchAbs = await impliedFirstErrors(db, search.id, { rule: "abs-q" });
  const fixedLabels = await db.chunkLabel.findMany({ where: { runId: fixed.id, rule: "abs_q" }, select: { chunkId: true, label: true } });
  const earlyLabels = new Map((await db.chunkLabel.findMany({ where: { runId: early.id, rule: "abs_q" }, select: { chunkId: true, label: true } })).map((l) => [l.chunkId, l.label]));
  const labelMismatches = fixedLabels.filter((l) => earlyLabels.get(l.chunkId) !== l.label).length;
  // Where fixed's own estimates are monotone (no success after a prefix without one), the search must agree.
  const values = await db.chunkValue.findMany({ where: { runId: fixed.id }, select: { segmentationId: true, prefixLength: true, correctCount: true } });
  const successes = new Map<string, boolean[]>();
  for (const v of values) {
    if (v.prefixLength === 0) continue;
    const list = successes.get(v.segmentationId) ?? [];
    list[v.prefixLength - 1] = v.correctCount > 0;
    successes.set(v.segmentationId, list);
  }
  let monotone = 0;
  let agree = 0;
  for (const [id, list] of successes) {
    const firstZero = list.indexOf(false);
    if (firstZero !== -1 && list.slice(firstZero).some(Boolean)) continue;
    monotone += 1;
    if ((searchAbs.get(id) ?? -1) === (fixedAbs.get(id) ?? -1)) agree += 1;
  }
  const earlyTokenRatio = fixed.tokens / Math.max(1, early.tokens);
  const searchRolloutShare = search.rollouts / fixed.rollouts;
  writeBenchmarkReport({
    name: "annotation-cost",
    bench: "annotation",
    title: "Annotation cost: fixed vs early-stop vs first-error",
    method:
      `The same ${solutions.length} simulated solutions and seeds, M = ${M}, annotated three ways on a 4-replica simulated cluster. Generated tokens are the run's completion-token counter (from the server's usage); rollouts are stored rows. ` +
      "Abs-Q labels use every success as evidence (a success from a later prefix continues the earlier ones), so early-stop can stop a prefix at its first success and stop scanning backwards at the first prefix that succeeds.",
    rows: [
      { metric: "fixed: rollouts / generated tokens / requests", value: `${fixed.rollouts} / ${fixed.tokens} / ${fixed.requests}` },
      { metric: "early-stop: rollouts / generated tokens / requests", value: `${early.rollouts} / ${early.tokens} / ${early.requests}` },
      { metric: "first-error: rollouts / generated tokens / requests", value: `${search.rollouts} / ${search.tokens} / ${search.requests}` },
      { metric: "early-stop: Abs-Q labels differing from fixed", value: `${labelMismatches} of ${fixedLabels.length}`, target: "0", met: labelMismatches === 0 },
      { metric: "early-stop: fixed's tokens ÷ early-stop's", value: `${earlyTokenRatio.toFixed(1)}×`, target: "≥ 4×", met: earlyTokenRatio >= 4 },
      { metric: "first-error: same first zero-Q chunk as fixed (monotone solutions)", value: `${agree} of ${monotone}`, target: "all", met: agree === monotone },
      { metric: "first-error: rollouts as a share of fixed's", value: `${(searchRolloutShare * 100).toFixed(1)} %`, target: "≤ 40 %", met: searchRolloutShare <= 0.4 },
    ],
  });
} finally {
  await env.close();
}
