import { InputError, NotFoundError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { planAnnotateRun, readRunConfig } from "@stepwiser/jobs";
import { ruleName } from "../../compare/readings";
import { labelBalanceCounts, qValueBins, qValueCounts } from "../label-distributions";
import { annotateSummarySchema, readSummary } from "./summaries";
import type { ResultRun } from "./run";

/** What a finished annotate run spent, against what the planner estimated for its configuration. */
export interface AnnotateUsage {
  actual: { requests: number; rollouts: number; promptTokens: number; generatedTokens: number };
  /** The planner's estimate (`stepwiser plan annotate`) of the stored configuration as of the run's creation; null with `estimateError` when it cannot be planned. */
  estimate: { requests: number; rollouts: number; promptTokens: number; generatedTokens: number; qSource: string } | null;
  estimateError: string | null;
}

/**
 * An annotate run's results: labels per rule (Positive / Negative), its
 * Q-values per tenth, and its rollouts and tokens against the plan's
 * estimate. The plan is computed here from the stored configuration, as of
 * the run's creation (only Q-values of runs finished before it), rather than
 * stored when the run is launched: every run has one, including runs launched
 * from the command line or before estimates existed, with no column to keep.
 */
export async function annotateResults(db: Db, run: ResultRun) {
  const [labels, qValues, usage] = await Promise.all([labelBalanceCounts(db, { runId: run.id }), qValueCounts(db, { runId: run.id }), annotateUsage(db, run)]);
  return {
    kind: "annotate" as const,
    summary: readSummary(annotateSummarySchema, run.summary),
    labelBalance: labels.map((l) => ({ rule: l.rule, paramsKey: l.paramsKey, name: ruleName(l), positive: l.positive, negative: l.negative })),
    qValues: qValueBins(qValues, run.id),
    usage,
  };
}

async function annotateUsage(db: Db, run: ResultRun): Promise<AnnotateUsage> {
  const rollouts = await db.rollout.count({ where: { runId: run.id } });
  const actual = { requests: run.requests, rollouts, promptTokens: Number(run.promptTokens), generatedTokens: Number(run.completionTokens) };
  try {
    const config = readRunConfig({ id: run.id, kind: "annotate", config: run.config });
    // tokensPerSecond only scales the hours, which this view does not show.
    const plan = await planAnnotateRun(db, config, { tokensPerSecond: 1, asOf: run.createdAt });
    const { requests, rollouts: plannedRollouts, promptTokens, generatedTokens } = plan.estimate;
    return { actual, estimate: { requests, rollouts: plannedRollouts, promptTokens, generatedTokens, qSource: plan.qValues.source }, estimateError: null };
  } catch (error) {
    // A configuration the planner refuses (or a dataset gone since) leaves the actual numbers standing alone.
    if (!(error instanceof InputError || error instanceof NotFoundError)) throw error;
    return { actual, estimate: null, estimateError: error.message };
  }
}
