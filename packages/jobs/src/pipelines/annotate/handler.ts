import { extractAnswer, gradeAnswer, InputError, labelRuleKey, lowestQValue, solutionLabelStats, type Label, type LabelRule } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import { snapshotEndpoint } from "../../inference/endpoint-clients";
import { planSegmentationIds } from "../../runs/paging";
import type { RunContext, RunKindHandler } from "../../runs/run-kind";
import { annotateConfigSchema, type AnnotateConfig } from "./config";
import { writeTrajectoryRunStat } from "../../runs/trajectory-stats";
import { labelsFor, readStoredValues, writeLabels, type StoredValues } from "./labels";
import type { SolutionUnderAnnotation } from "./rollouts";
import { annotateEarlyStop, annotateFirstError, annotateFixed } from "./strategies";

/** One planned solution as a unit annotates it, with whether its own final answer is right. */
export async function loadSolutionForAnnotation(db: Db | Prisma.TransactionClient, segmentationId: string) {
  const segmentation = await db.segmentation.findUniqueOrThrow({
    where: { id: segmentationId },
    select: {
      chunks: { orderBy: { index: "asc" }, select: { id: true, text: true } },
      trajectory: { select: { id: true, datasetId: true, externalId: true, text: true, finalAnswerCorrect: true, problem: { select: { text: true, referenceAnswer: true } } } },
    },
  });
  const { trajectory } = segmentation;
  const reference = trajectory.problem.referenceAnswer;
  if (!reference) throw new Error(`trajectory ${trajectory.externalId} has no reference answer to grade rollouts against`);
  if (segmentation.chunks.length === 0) throw new Error(`trajectory ${trajectory.externalId} has no chunks`);
  const solution: SolutionUnderAnnotation = {
    segmentationId,
    externalId: trajectory.externalId,
    problemText: trajectory.problem.text,
    referenceAnswer: reference,
    chunks: segmentation.chunks.map((c) => c.text),
  };
  // The solution is itself a rollout of its own last prefix.
  const finalCorrect = trajectory.finalAnswerCorrect ?? (extractAnswer(trajectory.text) !== null && gradeAnswer(reference, trajectory.text).equivalent);
  return { solution, chunkIds: segmentation.chunks.map((c) => c.id), finalCorrect, trajectoryId: trajectory.id, datasetId: trajectory.datasetId };
}

/** The list-filter summary of one annotated solution: its weakest prefix and its labels under the run's rules. */
function annotationStats(values: StoredValues, rules: readonly LabelRule[]) {
  const labellings = rules.map((rule) => labelsFor(rule, values)).filter((labels): labels is Label[] => labels !== null);
  return { chunkCount: values.q.length, qMin: lowestQValue(values.q), ...solutionLabelStats(labellings) };
}

export const annotateHandler: RunKindHandler<AnnotateConfig> = {
  kind: "annotate",
  configSchema: annotateConfigSchema,
  async snapshot(db, config) {
    return { ...config, policy: await snapshotEndpoint(db, config.policyEndpoint, "policyEndpoint") };
  },
  datasetId: (config) => config.datasetId,
  plan: ({ db, config }) => planSegmentationIds(db, config),
  concurrency: (config) => config.concurrency,

  async runUnit(ctx, segmentationId) {
    const { db, config, runId } = ctx;
    const { solution, chunkIds, finalCorrect, trajectoryId, datasetId } = await loadSolutionForAnnotation(db, segmentationId);
    const strategy = config.strategy === "fixed" ? annotateFixed : config.strategy === "early-stop" ? annotateEarlyStop : annotateFirstError;
    const result = await strategy(ctx, solution, finalCorrect);
    const k = solution.chunks.length;
    const values = result.estimates.map((e) => ({
      runId,
      segmentationId,
      prefixLength: e.prefixLength,
      qValue: e.rollouts ? e.correct / e.rollouts : 0,
      rolloutCount: e.rollouts,
      correctCount: e.correct,
    }));
    // Prefix k is the finished solution: its value is its own outcome, no rollout needed.
    values.push({ runId, segmentationId, prefixLength: k, qValue: finalCorrect ? 1 : 0, rolloutCount: 0, correctCount: finalCorrect ? 1 : 0 });
    // The witnessed success of the cheaper strategies is kept as evidence on its prefix.
    result.successAtPrefix.forEach((success, i) => {
      const length = i + 1;
      const value = values.find((v) => v.prefixLength === length);
      if (success && value && value.correctCount === 0) value.correctCount = 1;
    });
    await db.$transaction(async (tx) => {
      await tx.chunkValue.createMany({ data: values, skipDuplicates: true });
      const stored = { q0: values.find((v) => v.prefixLength === 0)?.qValue ?? null, q: Array.from({ length: k }, (_, i) => values.find((v) => v.prefixLength === i + 1)?.qValue ?? null), successAtPrefix: result.successAtPrefix };
      await writeLabels(tx, runId, chunkIds, stored, config.labelRules);
      await writeTrajectoryRunStat(tx, { runId, trajectoryId, datasetId, ...annotationStats(stored, config.labelRules) });
    });
  },

  async summarize(ctx) {
    const { db, runId } = ctx;
    const [rollouts, values] = await Promise.all([db.rollout.count({ where: { runId } }), db.chunkValue.count({ where: { runId } })]);
    const tokens = await db.rollout.aggregate({ where: { runId }, _sum: { completionTokens: true } });
    return { rollouts, chunkValues: values, rolloutCompletionTokens: tokens._sum.completionTokens ?? 0 };
  },
};

/**
 * Labels every solution of a finished annotate run under new rules from its
 * stored Q-values and evidence: no rollout, no request.
 */
export async function relabelAnnotateRun(db: Db, runId: string, rules: readonly LabelRule[]): Promise<{ solutions: number; labels: number; rules: string[] }> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { kind: true, config: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  if (run.kind !== "annotate") throw new InputError(`run ${runId} is a ${run.kind} run, not annotate`, { field: "runId" });
  const config = annotateConfigSchema.parse(run.config);
  if (config.strategy !== "fixed" && rules.some((r) => r.rule !== "abs-q")) {
    throw new InputError(`run ${runId} used the ${config.strategy} strategy, which stores no Q-values for ${rules.filter((r) => r.rule !== "abs-q").map(labelRuleKey).join(", ")}`);
  }
  let solutions = 0;
  let labels = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await db.runUnit.findMany({
      where: { runId, status: "done" },
      orderBy: { id: "asc" },
      take: 200,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: { id: true, key: true },
    });
    for (const unit of page) {
      const chunks = await db.chunk.findMany({ where: { segmentationId: unit.key }, orderBy: { index: "asc" }, select: { id: true } });
      const values = await readStoredValues(db, runId, unit.key, chunks.length);
      labels += await writeLabels(db, runId, chunks.map((c) => c.id), values, rules);
      solutions += 1;
    }
    if (page.length < 200) break;
    cursor = page[page.length - 1]!.id;
  }
  return { solutions, labels, rules: rules.map(labelRuleKey) };
}
