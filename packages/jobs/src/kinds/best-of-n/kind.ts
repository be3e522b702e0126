import {
  aggregateSolutionScore,
  pickBest,
  SOLUTION_AGGREGATIONS,
  type SolutionAggregation,
  buildOutcomePairwiseMessages,
  buildOutcomePointwiseMessages,
  majorityOfPairVotes,
  meanOutcomeScore,
  createRng,
  derivedSeed,
  judgeProtocolRef,
  majorityAnswer,
  parseOutcomeScore,
  parsePairwiseWinner,
  runKnockout,
  type JudgeProtocolId,
} from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import { z } from "zod";
import { isTruncated, judgeSeed } from "../../judging/judge-chunks";
import { judgeProtocolFields, judgeSamplingFields, refuseBadJudgeSettings, segmentationJudgeRun, withJudgeSamplingDefaults, withStoredJudgeSampling } from "../../judging/judge-run";
import { judgeOutputCounts } from "../../judging/output-counts";
import { checkJudgeProtocol } from "../../judging/protocol-check";
import { judgeWithProtocol, loadSegmentationForJudge, solutionEvidenceColumns, votesOfSamples } from "../../judging/protocol-judge";
import { modelOf, usedEndpoint } from "../../kit/kind-facts";
import { planProblemIds, refuseEmptySegmentationSelection } from "../../kit/paging";
import type { RunContext, UnitRunKind } from "../../runs/run-kind";
import { bestOfNFormHints } from "./form-hints";
import { bestOfNSummarySchema } from "./summary";

export { aggregateSolutionScore, pickBest, SOLUTION_AGGREGATIONS, type SolutionAggregation };

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
const bestOfNConfigFields = z.object({
  /** Problems with several solutions each (e.g. a generate run's output). */
  datasetId: z.string().min(1),
  segmentationMethod: z.string().min(1).default("self-segmented"),
  /** A chunk's score is the mean of its samples' scores, or the share of Positive verdicts where the protocol scores none. */
  ...judgeSamplingFields,
  ...judgeProtocolFields,
  limit: z.number().int().min(1).optional(),
  concurrency: z.number().int().min(1).max(4096).default(32),
});

export const bestOfNStoredConfigSchema = bestOfNConfigFields.transform(withStoredJudgeSampling);

export const bestOfNConfigSchema = bestOfNConfigFields.superRefine(refuseBadJudgeSettings).transform(withJudgeSamplingDefaults);
export type BestOfNConfig = z.output<typeof bestOfNConfigSchema>;

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

function planProblems(db: Db, config: BestOfNConfig): AsyncGenerator<string> {
  return planProblemIds(db, { datasetId: config.datasetId, limit: config.limit });
}

async function solutionsOf(db: Db, problemId: string, method: string) {
  return db.segmentation.findMany({
    where: { method, solution: { problemId } },
    orderBy: { solution: { externalId: "asc" } },
    select: { id: true, solution: { select: { id: true, finalAnswer: true, finalAnswerCorrect: true } } },
  });
}

export const BEST_OF_N_SELECTIONS = [...SOLUTION_AGGREGATIONS, "solution", "tournament"] as const;
export type BestOfNSelection = (typeof BEST_OF_N_SELECTIONS)[number];

/**
 * How a protocol picks: stepwise ones aggregate chunk scores (mean, min, last); those
 * that also score the whole solution (ThinkPRM's P(yes), an outcome model's score)
 * pick by that score too; the pairwise one picks by its knockout bracket.
 */
export function selectionsOf(protocol: JudgeProtocolId): BestOfNSelection[] {
  if (protocol === "outcome-pairwise") return ["tournament"];
  if (protocol === "outcome-pointwise") return ["solution"];
  if (protocol === "thinkprm") return [...SOLUTION_AGGREGATIONS, "solution"];
  return [...SOLUTION_AGGREGATIONS];
}

export const bestOfNKind: UnitRunKind<BestOfNConfig, z.output<typeof bestOfNSummarySchema>> = {
  kind: "best_of_n",
  execution: "units",
  submitSchema: bestOfNConfigSchema,
  storedSchema: bestOfNStoredConfigSchema,
  summarySchema: bestOfNSummarySchema,
  formHints: bestOfNFormHints,
  endpoints: (config) => usedEndpoint("judge", config.judge),
  facts: (config) => [modelOf(config.judge, config.judgeEndpoint, "judge"), `K=${config.samples}`],
  async snapshot(db, config) {
    const snapshot = await segmentationJudgeRun.snapshot(db, config);
    checkJudgeProtocol("best_of_n", { ...snapshot, samplesField: "samples" }, snapshot.judge!, "judgeEndpoint");
    return snapshot;
  },
  datasetId: segmentationJudgeRun.datasetId,
  plan: (ctx) => planProblems(ctx.db, ctx.config),
  refuseEmptyPlan: (db, config) => refuseEmptySegmentationSelection(db, { datasetId: config.datasetId, segmentationMethod: config.segmentationMethod }),
  concurrency: segmentationJudgeRun.concurrency,

  async runUnit(ctx, problemId) {
    const { db, runId, config } = ctx;
    const solutions = await solutionsOf(db, problemId, config.segmentationMethod);
    if (config.protocol === "outcome-pairwise") {
      await runTournament(ctx, problemId, solutions.map((s) => s.id));
      return;
    }
    for (const solution of solutions) {
      if (config.protocol === "outcome-pointwise") {
        await scoreOutcome(ctx, solution.id);
        continue;
      }
      const settings = { ...config, tiePolicy: "Negative" as const, stopAtFirstNegative: false };
      const judged = await judgeWithProtocol({ ...ctx, config: settings }, solution.id);
      if (judged.solution) {
        await db.solutionPrediction.createMany({
          data: [{ runId, solutionId: judged.solutionId, predictedFirstError: judged.predictedFirstError, ...solutionEvidenceColumns(judged.solution) }],
          skipDuplicates: true,
        });
      }
    }
  },

  /**
   * Accuracy of the pick under each of the protocol's selections, against majority
   * vote over the final answers and against a seeded random pick, problem by problem.
   */
  async summarize(ctx) {
    const { db, runId, config } = ctx;
    const selections = selectionsOf(config.protocol);
    const correct: Record<string, number> = Object.fromEntries([...selections, "majority", "random", "oracle"].map((k) => [k, 0]));
    let problems = 0;
    const rng = createRng(`best-of-n:${config.seed}`);
    for await (const problemId of planProblems(db, config)) {
      const solutions = await solutionsOf(db, problemId, config.segmentationMethod);
      if (solutions.length === 0) continue;
      problems += 1;
      const isCorrect = (i: number) => i >= 0 && solutions[i]!.solution.finalAnswerCorrect === true;
      const picks = await picksOf(db, runId, config.protocol, problemId, solutions);
      for (const selection of selections) if (isCorrect(picks[selection] ?? -1)) correct[selection]! += 1;
      const majority = majorityPick(solutions.map((s) => s.solution.finalAnswer));
      if (majority !== null && isCorrect(majority)) correct.majority! += 1;
      if (isCorrect(rng.nextInt(solutions.length))) correct.random! += 1;
      if (solutions.some((_, i) => isCorrect(i))) correct.oracle! += 1;
    }
    const accuracy = Object.fromEntries(Object.entries(correct).map(([k, v]) => [k, problems ? v / problems : 0]));
    return {
      protocol: judgeProtocolRef(config.protocol),
      ...(config.judgePromptTemplateId ? { judgePromptTemplateId: config.judgePromptTemplateId } : {}),
      selections,
      problems,
      accuracy,
      judgeOutputs: await judgeOutputCounts(db, runId, config.protocol),
    };
  },
};

type Solutions = Awaited<ReturnType<typeof solutionsOf>>;

/** The index each selection picks among a problem's solutions (ties to the earliest; -1 when it picks none). */
async function picksOf(db: Db, runId: string, protocol: JudgeProtocolId, problemId: string, solutions: Solutions): Promise<Partial<Record<BestOfNSelection, number>>> {
  if (protocol === "outcome-pairwise") {
    const bracket = await db.selectionBracket.findUnique({ where: { runId_problemId: { runId, problemId } }, select: { winnerSolutionId: true } });
    return { tournament: solutions.findIndex((s) => s.solution.id === bracket?.winnerSolutionId) };
  }
  const picks: Partial<Record<BestOfNSelection, number>> = {};
  const selections = selectionsOf(protocol);
  if (selections.includes("solution")) {
    const rows = await db.solutionPrediction.findMany({ where: { runId, solutionId: { in: solutions.map((s) => s.solution.id) } }, select: { solutionId: true, score: true } });
    const bySolution = new Map(rows.map((r) => [r.solutionId, r.score]));
    picks.solution = pickBest(solutions.map((s) => bySolution.get(s.solution.id) ?? -Infinity));
  }
  if (selections.includes("mean")) {
    // One query for all candidates of the problem, grouped here by solution and chunk.
    const samples = await db.judgeSample.findMany({
      where: { runId, chunk: { segmentationId: { in: solutions.map((s) => s.id) } } },
      select: { verdict: true, score: true, chunkId: true, chunk: { select: { index: true, segmentationId: true } } },
    });
    const chunkScores = solutions.map((solution) => {
      const own = samples.filter((s) => s.chunk.segmentationId === solution.id).sort((a, b) => a.chunk.index - b.chunk.index);
      const chunks = [...new Set(own.map((s) => s.chunkId))].map((id) => ({ id }));
      return votesOfSamples(chunks, own, "Negative").chunkScores.map((score) => score ?? 0);
    });
    for (const aggregation of SOLUTION_AGGREGATIONS) picks[aggregation] = pickBest(chunkScores.map((s) => aggregateSolutionScore(s, aggregation)));
  }
  return picks;
}

/** The text an outcome model reads: the solution's chunks joined by blank lines, with the problem. */
async function outcomeInput(db: Db, segmentationId: string): Promise<{ solutionId: string; externalId: string; problem: string; steps: string[]; solution: string }> {
  const solution = await loadSegmentationForJudge(db, segmentationId);
  const steps = solution.chunks.map((c) => c.text);
  return { solutionId: solution.solutionId, externalId: solution.externalId, problem: solution.problemText, steps, solution: steps.join("\n\n") };
}

/** outcome-pointwise: K scores of the whole solution in one request; the solution's score is their mean. */
async function scoreOutcome(ctx: RunContext<BestOfNConfig>, segmentationId: string): Promise<void> {
  const { db, runId, config } = ctx;
  const input = await outcomeInput(db, segmentationId);
  const done = await db.solutionPrediction.findUnique({ where: { runId_solutionId: { runId, solutionId: input.solutionId } }, select: { id: true } });
  if (done) return;
  const judge = config.judge!;
  const request = buildOutcomePointwiseMessages({ problem: input.problem, steps: input.steps });
  const result = await ctx.endpoints.get(judge).client.generate({
    model: judge.model,
    prompt: { kind: "chat", messages: request.messages },
    n: config.samples,
    seed: judgeSeed(config.seed, input.externalId, -1),
    temperature: config.temperature,
    topP: config.topP,
    maxTokens: config.maxTokens,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  const samples = result.samples.map((sample) => ({ text: sample.text, score: parseOutcomeScore(sample.text), truncated: isTruncated(sample) }));
  await db.solutionPrediction.createMany({
    data: [{
      runId,
      solutionId: input.solutionId,
      predictedFirstError: null,
      score: meanOutcomeScore(samples.map((s) => s.score)),
      output: samples[0]?.text ?? null,
      samples: samples as unknown as Prisma.InputJsonValue,
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
    }],
    skipDuplicates: true,
  });
}

/**
 * outcome-pairwise: a knockout tournament over the problem's solutions (Reward
 * Reasoning Models): each match asks the judge K times which of two solutions is
 * better and the majority goes through; the bracket, every vote included, is stored
 * with the winner.
 */
async function runTournament(ctx: RunContext<BestOfNConfig>, problemId: string, segmentationIds: readonly string[]): Promise<void> {
  const { db, runId, config } = ctx;
  const done = await db.selectionBracket.findUnique({ where: { runId_problemId: { runId, problemId } }, select: { id: true } });
  if (done || segmentationIds.length === 0) return;
  const judge = config.judge!;
  const client = ctx.endpoints.get(judge).client;
  const inputs = await Promise.all(segmentationIds.map((id) => outcomeInput(db, id)));
  let promptTokens = 0;
  let completionTokens = 0;
  const bracket = await runKnockout(inputs.length, async (a, b) => {
    const request = buildOutcomePairwiseMessages({ question: inputs[a]!.problem, answer1: inputs[a]!.solution, answer2: inputs[b]!.solution });
    const result = await client.generate({
      model: judge.model,
      prompt: { kind: "chat", messages: request.messages },
      n: config.samples,
      seed: derivedSeed("pairwise", config.seed, inputs[a]!.externalId, inputs[b]!.externalId),
      temperature: config.temperature,
      topP: config.topP,
      maxTokens: config.maxTokens,
      signal: ctx.signal,
    });
    ctx.recordUsage(result.usage);
    promptTokens += result.usage.promptTokens;
    completionTokens += result.usage.completionTokens;
    const decision = majorityOfPairVotes(result.samples.map((sample) => parsePairwiseWinner(sample.text)));
    return { winner: decision.winner === 1 ? a : b, votes: decision.votes, decidedBy: decision.decidedBy };
  });
  await db.selectionBracket.createMany({
    data: [{
      runId,
      problemId,
      winnerSolutionId: inputs[bracket.winner]?.solutionId ?? null,
      bracket: { ...bracket, candidates: inputs.map((input) => input.solutionId) } as unknown as Prisma.InputJsonValue,
      promptTokens,
      completionTokens,
    }],
    skipDuplicates: true,
  });
}
