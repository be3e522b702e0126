import { createRng, majorityAnswer, positiveShare, type Verdict } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { z } from "zod";
import { judgeProtocolFields, judgeSamplingFields, refuseIdenticalJudgeSamples, segmentationJudgeRun } from "../judge/judge-run";
import { planProblemIds } from "../../runs/paging";
import type { RunKindHandler } from "../../runs/run-kind";
import { judgeSegmentation } from "../judge/judge-chunks";

export const SOLUTION_AGGREGATIONS = ["mean", "min", "last"] as const;
export type SolutionAggregation = (typeof SOLUTION_AGGREGATIONS)[number];

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
export const bestOfNStoredConfigSchema = z.object({
  /** Problems with several solutions each (e.g. a generate run's output). */
  datasetId: z.string().min(1),
  segmentationMethod: z.string().min(1).default("self-segmented"),
  /** A chunk's score is the share of Positive verdicts among its judge samples. */
  ...judgeSamplingFields,
  ...judgeProtocolFields,
  limit: z.number().int().min(1).optional(),
  concurrency: z.number().int().min(1).max(4096).default(32),
});

export const bestOfNConfigSchema = bestOfNStoredConfigSchema.superRefine(refuseIdenticalJudgeSamples);
export type BestOfNConfig = z.output<typeof bestOfNConfigSchema>;

/** A solution's score from its chunk scores (spec §5: mean by default; min and last as options). */
export function aggregateSolutionScore(chunkScores: readonly number[], aggregation: SolutionAggregation): number {
  if (chunkScores.length === 0) return 0;
  if (aggregation === "min") return Math.min(...chunkScores);
  if (aggregation === "last") return chunkScores[chunkScores.length - 1]!;
  return chunkScores.reduce((sum, s) => sum + s, 0) / chunkScores.length;
}

/** Time limit of one answer comparison in the majority vote, as other callers of the grader use. */
const VOTE_COMPARISON_MS = 1000;

/**
 * Index of the solution whose final answer the majority vote chose, or null when
 * none has one. Answers vote together when the grader finds them equivalent
 * (`0.5`, `\frac12`, `1/2`); ties go to the answer met first in the solutions'
 * order (see `majorityAnswer`). The vote is right iff that solution is.
 */
export function majorityPick(finalAnswers: readonly (string | null)[]): number | null {
  return majorityAnswer(finalAnswers, { timeLimitMs: VOTE_COMPARISON_MS }).winner?.members[0] ?? null;
}

/** Index of the best-scored solution; ties go to the earliest (a fixed, reproducible rule). */
export function pickBest(scores: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  return best;
}

function planProblems(db: Db, config: BestOfNConfig): AsyncGenerator<string> {
  return planProblemIds(db, { datasetId: config.datasetId, limit: config.limit });
}

async function solutionsOf(db: Db, problemId: string, method: string) {
  return db.segmentation.findMany({
    where: { method, trajectory: { problemId } },
    orderBy: { trajectory: { externalId: "asc" } },
    select: { id: true, trajectory: { select: { finalAnswer: true, finalAnswerCorrect: true } } },
  });
}

export const bestOfNHandler: RunKindHandler<BestOfNConfig> = {
  kind: "best_of_n",
  configSchema: bestOfNConfigSchema,
  snapshot: segmentationJudgeRun.snapshot,
  datasetId: segmentationJudgeRun.datasetId,
  plan: (ctx) => planProblems(ctx.db, ctx.config),
  concurrency: segmentationJudgeRun.concurrency,

  async runUnit(ctx, problemId) {
    const settings = { ...ctx.config, tiePolicy: "Negative" as const, stopAtFirstNegative: false };
    const judgeCtx = { ...ctx, config: settings };
    for (const solution of await solutionsOf(ctx.db, problemId, ctx.config.segmentationMethod)) await judgeSegmentation(judgeCtx, ctx.db, solution.id);
  },

  /**
   * Accuracy of the pick under each aggregation, against majority vote over the
   * final answers and against a seeded random pick, problem by problem.
   */
  async summarize(ctx) {
    const { db, runId, config } = ctx;
    const correct: Record<SolutionAggregation | "majority" | "random" | "oracle", number> = { mean: 0, min: 0, last: 0, majority: 0, random: 0, oracle: 0 };
    let problems = 0;
    const rng = createRng(`best-of-n:${config.seed}`);
    for await (const problemId of planProblems(db, config)) {
      const solutions = await solutionsOf(db, problemId, config.segmentationMethod);
      if (solutions.length === 0) continue;
      problems += 1;
      // One query for all candidates of the problem, grouped here by solution and chunk.
      const samples = await db.judgeSample.findMany({
        where: { runId, chunk: { segmentationId: { in: solutions.map((s) => s.id) } } },
        select: { verdict: true, chunk: { select: { index: true, segmentationId: true } } },
      });
      const chunkScores = solutions.map((solution) => {
        const byChunk = new Map<number, Verdict[]>();
        for (const s of samples) if (s.chunk.segmentationId === solution.id) byChunk.set(s.chunk.index, [...(byChunk.get(s.chunk.index) ?? []), s.verdict]);
        return [...byChunk.entries()].sort(([a], [b]) => a - b).map(([, verdicts]) => positiveShare(verdicts) ?? 0);
      });
      const isCorrect = (i: number) => solutions[i]!.trajectory.finalAnswerCorrect === true;
      for (const aggregation of SOLUTION_AGGREGATIONS) if (isCorrect(pickBest(chunkScores.map((s) => aggregateSolutionScore(s, aggregation))))) correct[aggregation] += 1;
      const majority = majorityPick(solutions.map((s) => s.trajectory.finalAnswer));
      if (majority !== null && isCorrect(majority)) correct.majority += 1;
      if (isCorrect(rng.nextInt(solutions.length))) correct.random += 1;
      if (solutions.some((_, i) => isCorrect(i))) correct.oracle += 1;
    }
    const accuracy = Object.fromEntries(Object.entries(correct).map(([k, v]) => [k, problems ? v / problems : 0]));
    return { problems, accuracy };
  },
};
