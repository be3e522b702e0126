import {
  InputError,
  labelRuleKey,
  lowestQValue,
  runAnnotationStrategy,
  solutionLabelStats,
  type AdaptiveSettings,
  type Label,
  type LabelRule,
  type Monotonicity,
  type StoredSolutionValues,
} from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { z } from "zod";
import { snapshotEndpoint } from "../../inference/endpoint-clients";
import { modelOf, usedEndpoint } from "../../kit/kind-facts";
import { planSegmentationIds, refuseEmptySegmentationSelection } from "../../kit/paging";
import { writeSolutionRunStat } from "../../kit/solution-stats";
import type { RunContext, UnitRunKind } from "../../runs/run-kind";
import { readStoredConfig } from "../../runs/stored-config";
import { annotateBatch } from "./batch";
import { fitConfidencePriorFromRun } from "./confidence-prior";
import { annotateConfigSchema, annotateStoredConfigSchema, estimatesEveryRule, laterPrefixesField, samplingEvidence, type AnnotateConfig } from "./config";
import { annotateFormHints } from "./form-hints";
import { labellingsOf, readStoredSolution, storedSolution, writeLabels, type Labelling } from "./labels";
import { rolloutOutcomes, storedRolloutOutcomes } from "./rollouts";
import { loadSolutionForAnnotation } from "./solution";
import { annotateResultColumns } from "./result-columns";
import { annotateSummarySchema } from "./summary";

export { loadSolutionForAnnotation };

/**
 * The adaptive strategy's settings for a run (undefined for the other
 * strategies): its rules and confidence options, and its token budget as a
 * check between rounds against the tokens the run has recorded.
 */
function adaptiveSettings(ctx: RunContext<AnnotateConfig>): AdaptiveSettings | undefined {
  const { config } = ctx;
  if (config.strategy !== "adaptive") return undefined;
  const budget = config.tokenBudget;
  return {
    batch: config.adaptiveBatch,
    targetConfidence: config.targetConfidence,
    maxRollouts: config.maxRollouts,
    rules: config.labelRules,
    confidence: config.labelConfidence,
    mayContinue:
      budget === undefined
        ? undefined
        : async () => {
            const run = await ctx.db.run.findUnique({ where: { id: ctx.runId }, select: { completionTokens: true } });
            return Number(run?.completionTokens ?? 0) + (ctx.unflushedCompletionTokens?.() ?? 0) < budget;
          },
  };
}

/** The list-filter summary of one annotated solution: its weakest prefix and its labels under the run's rules. */
function annotationStats(values: StoredSolutionValues, labellings: readonly Labelling[]) {
  const known = labellings.map((l) => l.labels).filter((labels): labels is Label[] => labels !== null);
  return { chunkCount: values.q.length, qMin: lowestQValue(values.q), ...solutionLabelStats(known) };
}

/**
 * Refuses later-prefixes Abs-Q evidence unless every solution in scope was
 * written by a generate run of the run's own policy model: only then is a
 * success from a later prefix a continuation the same policy could have
 * sampled from the earlier one. Imported solutions (ProcessBench, PRM800K)
 * were written by other models, and some reach the right answer after an error.
 */
export async function assertLaterPrefixesAllowed(
  db: Db,
  scope: Pick<AnnotateConfig, "datasetId" | "solutionIds">,
  policyModel: string,
  /** The input field that asked for later-prefixes evidence; null when nothing did. */
  field: string | null,
): Promise<void> {
  if (!field) return;
  const ids = scope.solutionIds ?? null;
  const foreign = await db.$queryRaw<{ externalId: string; generator: string; runId: string | null; model: string | null }[]>`
    SELECT t."externalId", t.generator, t."runId", r.config->'policy'->>'model' AS model
      FROM "Solution" t LEFT JOIN "Run" r ON r.id = t."runId" AND r.kind = 'generate'
     WHERE t."datasetId" = ${scope.datasetId}
       AND (${ids === null}::boolean OR t.id = ANY(${ids ?? []}::text[]))
       AND (r.id IS NULL OR r.config->'policy'->>'model' IS DISTINCT FROM ${policyModel})
     LIMIT 1`;
  const first = foreign[0];
  if (!first) return;
  const origin = first.runId === null ? `was not written by a generate run (generator "${first.generator}")` : `was written by a generate run of model "${first.model ?? "unknown"}"`;
  throw new InputError(
    `later-prefixes Abs-Q evidence counts a later prefix's success for earlier chunks, which holds only for solutions the run's own policy (${policyModel}) sampled; solution ${first.externalId} ${origin}. Use "own-prefix" (the paper's estimator)`,
    { field },
  );
}

export const annotateKind: UnitRunKind<AnnotateConfig, z.output<typeof annotateSummarySchema>> = {
  kind: "annotate",
  execution: "units",
  batch: annotateBatch,
  submitSchema: annotateConfigSchema,
  storedSchema: annotateStoredConfigSchema,
  summarySchema: annotateSummarySchema,
  formHints: annotateFormHints,
  endpoints: (config) => usedEndpoint("policy", config.policy),
  facts: (config) =>
    // adaptive draws up to maxRollouts per prefix, to a target confidence; M is not used.
    config.strategy === "adaptive"
      ? [modelOf(config.policy, config.policyEndpoint, "policy"), `M≤${config.maxRollouts}`, `adaptive to ${config.targetConfidence}`]
      : [modelOf(config.policy, config.policyEndpoint, "policy"), `M=${config.rollouts}`, config.strategy],
  async snapshot(db, config) {
    const policy = await snapshotEndpoint(db, config.policyEndpoint, "policyEndpoint");
    await assertLaterPrefixesAllowed(db, config, policy.model, laterPrefixesField(config));
    if (!config.confidencePriorFromRun) return { ...config, policy };
    const { zero, one, a, b } = await fitConfidencePriorFromRun(db, config.confidencePriorFromRun, "confidencePriorFromRun");
    return { ...config, policy, labelConfidence: { ...config.labelConfidence, prior: "mixture", mixture: { zero, one, a, b } } };
  },
  datasetId: (config) => config.datasetId,
  plan: ({ db, config }) => planSegmentationIds(db, config),
  refuseEmptyPlan: (db, config) => refuseEmptySegmentationSelection(db, config),
  concurrency: (config) => config.concurrency,

  async runUnit(ctx, segmentationId) {
    const { db, config, runId } = ctx;
    const { solution, chunkIds, finalCorrect, solutionId, datasetId } = await loadSolutionForAnnotation(db, segmentationId);
    const k = solution.chunks.length;
    const settings = { rollouts: config.rollouts, batch: config.earlyStopBatch, evidence: samplingEvidence(config), adaptive: adaptiveSettings(ctx) };
    const stored = await storedRolloutOutcomes(db, runId, segmentationId);
    const result = await runAnnotationStrategy(config.strategy, k, finalCorrect, settings, (prefixLength, samples) => rolloutOutcomes(ctx, solution, prefixLength, samples, stored));
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
    const storedValues = storedSolution(values, k);
    const labellings = labellingsOf(storedValues, config.labelRules, config.labelConfidence);
    await db.$transaction(async (tx) => {
      await tx.chunkValue.createMany({ data: values, skipDuplicates: true });
      await writeLabels(tx, runId, solutionId, chunkIds, labellings);
      await writeSolutionRunStat(tx, { runId, solutionId, datasetId, ...annotationStats(storedValues.values, labellings), monotonicity: result.monotonicity });
    });
  },

  async summarize(ctx) {
    const { db, runId } = ctx;
    const [rollouts, values] = await Promise.all([db.rollout.count({ where: { runId } }), db.chunkValue.count({ where: { runId } })]);
    const tokens = await db.rollout.aggregate({ where: { runId }, _sum: { completionTokens: true } });
    const summary = { rollouts, chunkValues: values, rolloutCompletionTokens: tokens._sum.completionTokens ?? 0 };
    if (ctx.config.strategy !== "first-error") return summary;
    // Solutions whose labels rest on the monotonicity first-error assumes, and those where it was seen to fail.
    const flags = await db.solutionRunStat.groupBy({ by: ["monotonicity"], where: { runId }, _count: { _all: true } });
    const count = (m: Monotonicity) => flags.find((f) => f.monotonicity === m)?._count._all ?? 0;
    return { ...summary, monotonicity: { confirmed: count("confirmed"), assumed: count("assumed"), violated: count("violated") } };
  },

  resultColumns: ({ db, runId, config }) => annotateResultColumns(db, runId, config.labelRules),
};

/**
 * Labels every solution of a finished annotate run under new rules from its
 * stored Q-values and evidence: no rollout, no request.
 */
export async function relabelAnnotateRun(db: Db, runId: string, rules: readonly LabelRule[]): Promise<{ solutions: number; labels: number; rules: string[] }> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { kind: true, config: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  if (run.kind !== "annotate") throw new InputError(`run ${runId} is a ${run.kind} run, not annotate`, { field: "runId" });
  const config = readStoredConfig({ id: runId, kind: "annotate", config: run.config }, annotateStoredConfigSchema);
  const asksLaterPrefixes = rules.some((r) => r.rule === "abs-q" && r.evidence === "later-prefixes");
  if (config.policy) await assertLaterPrefixesAllowed(db, config, config.policy.model, asksLaterPrefixes ? "evidence" : null);
  if (config.strategy !== "fixed" && samplingEvidence(config) === "later-prefixes" && rules.some((r) => r.rule === "abs-q" && r.evidence === "own-prefix")) {
    throw new InputError(
      `run ${runId} used the ${config.strategy} strategy sampling for later-prefixes evidence only (it stopped at the first success scanning backwards), so it has no own-prefix estimate for every chunk; annotate again for own-prefix labels`,
      { field: "evidence" },
    );
  }
  if (!estimatesEveryRule(config.strategy) && rules.some((r) => r.rule !== "abs-q")) {
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
      const segmentation = await db.segmentation.findUniqueOrThrow({ where: { id: unit.key }, select: { solutionId: true, chunks: { orderBy: { index: "asc" }, select: { id: true } } } });
      const { chunks } = segmentation;
      const stored = await readStoredSolution(db, runId, unit.key, chunks.length);
      labels += await writeLabels(db, runId, segmentation.solutionId, chunks.map((c) => c.id), labellingsOf(stored, rules, config.labelConfidence));
      solutions += 1;
    }
    if (page.length < 200) break;
    cursor = page[page.length - 1]!.id;
  }
  return { solutions, labels, rules: rules.map(labelRuleKey) };
}
