import { buildStepwiserJudgePrompt, DEFAULT_STEPWISER_JUDGE_PROMPT_ID, derivedSeed, majorityVerdict, parseVerdict, predictFirstError, type StepwiserJudgePromptId, type TiePolicy, type Verdict } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import type { GenerationRequest } from "@stepwiser/inference";
import type { RunContext } from "../runs/run-kind";
import type { EndpointSnapshot } from "../inference/endpoint-clients";

export interface JudgeSettings {
  judge?: EndpointSnapshot;
  samples: number;
  temperature: number;
  /** Sent only when set (the run's own value or its protocol's default). */
  topP?: number;
  /** stepwiser-chunk's prompt version (a resolved config always names it; absent reads as the default). */
  judgePromptTemplateId?: StepwiserJudgePromptId;
  maxTokens: number;
  seed: number;
  tiePolicy: TiePolicy;
  /** Stop judging a solution at its first chunk voted Negative (enough for a first-error prediction). */
  stopAtFirstNegative: boolean;
}

export interface JudgedSolution {
  solutionId: string;
  chunkCount: number;
  /** Majority verdict per judged chunk, in order (shorter than the solution when stopped early). */
  votes: Verdict[];
  predictedFirstError: number | null;
}

/** Seed of sample 0 for one chunk: run seed, solution id and chunk index. */
export function judgeSeed(runSeed: number, externalId: string, chunkIndex: number): number {
  return derivedSeed("judge", runSeed, externalId, chunkIndex);
}

/** What the judge prompt of one chunk needs: the problem and the chunks of its solution, in order. */
export interface JudgedChunkContext {
  segmentationId: string;
  externalId: string;
  problemText: string;
  chunks: ReadonlyArray<{ index: number; text: string }>;
}

/**
 * The request for samples `first .. first + count - 1` of the chunk at `position`:
 * one request with n and the seed of its first sample, sent online and written to
 * batch files alike.
 */
export function judgeRequest(settings: JudgeSettings, solution: JudgedChunkContext, position: number, first: number, count: number): GenerationRequest {
  const chunk = solution.chunks[position]!;
  const prompt = buildStepwiserJudgePrompt({ problem: solution.problemText, previousChunks: solution.chunks.slice(0, position).map((c) => c.text), chunk: chunk.text }, judgePromptOf(settings));
  return {
    model: settings.judge!.model,
    prompt: { kind: "chat", messages: [{ role: "user", content: prompt.text }] },
    n: count,
    seed: judgeSeed(settings.seed, solution.externalId, chunk.index) + first,
    temperature: settings.temperature,
    ...(settings.topP === undefined ? {} : { topP: settings.topP }),
    maxTokens: settings.maxTokens,
    affinityKey: `${solution.segmentationId}:${position}`,
  };
}

/** The judge prompt of a run's settings. */
export function judgePromptOf(settings: Pick<JudgeSettings, "judgePromptTemplateId">): StepwiserJudgePromptId {
  return settings.judgePromptTemplateId ?? DEFAULT_STEPWISER_JUDGE_PROMPT_ID;
}

/** A judge output the server cut at its generation limit (OpenAI finish reason `length`). */
export function isTruncated(sample: { finishReason?: string | null }): boolean {
  return sample.finishReason === "length";
}

/** One answered sample as a JudgeSample row needs it: its text and why generation stopped. */
export interface AnsweredSample {
  text: string;
  finishReason?: string | null;
}

/**
 * The JudgeSample rows of one answered request, verdicts parsed and cut outputs
 * marked truncated: what an online request stores and what an imported batch output
 * line stores. The request's prompt tokens go on its first sample; its completion
 * tokens are spread evenly.
 */
export function judgeSampleRows(
  runId: string,
  chunkId: string,
  sampleIndices: readonly number[],
  samples: readonly AnsweredSample[],
  usage: { promptTokens: number; completionTokens: number },
  promptTemplateId: string,
): Prisma.JudgeSampleCreateManyInput[] {
  return samples.map((sample, i) => ({
    runId,
    chunkId,
    sampleIndex: sampleIndices[i]!,
    promptTemplateId,
    rationale: sample.text,
    verdict: parseVerdict(sample.text).verdict,
    truncated: isTruncated(sample),
    promptTokens: i === 0 ? usage.promptTokens : 0,
    completionTokens: Math.round(usage.completionTokens / samples.length),
  }));
}

/**
 * Judges the chunks of one segmentation with the StepWiser prompt (problem,
 * history = the chunks before, the chunk): K samples per chunk in one request,
 * every rationale stored, majority vote with the tie policy. Stored samples are
 * reused, so a redone unit (or one whose requests were answered offline) sends
 * only what is missing.
 */
export async function judgeSegmentation(ctx: RunContext<JudgeSettings>, db: Db, segmentationId: string): Promise<JudgedSolution> {
  const settings = ctx.config;
  const segmentation = await db.segmentation.findUniqueOrThrow({
    where: { id: segmentationId },
    select: {
      chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } },
      solution: { select: { id: true, externalId: true, problem: { select: { text: true } } } },
    },
  });
  const { chunks, solution } = segmentation;
  const context: JudgedChunkContext = { segmentationId, externalId: solution.externalId, problemText: solution.problem.text, chunks };
  // Samples stored by an earlier attempt of this unit, read once for all its chunks.
  const stored = await db.judgeSample.findMany({
    where: { runId: ctx.runId, chunkId: { in: chunks.map((c) => c.id) } },
    select: { chunkId: true, sampleIndex: true, verdict: true },
  });
  const judgeOne = async (position: number): Promise<Verdict> => {
    const chunk = chunks[position]!;
    const verdicts = new Map<number, Verdict>(stored.filter((s) => s.chunkId === chunk.id).map((s) => [s.sampleIndex, s.verdict]));
    const missing = Array.from({ length: settings.samples }, (_, i) => i).filter((i) => !verdicts.has(i));
    if (missing.length > 0) {
      const result = await ctx.endpoints.get(settings.judge!).client.generate({ ...judgeRequest(settings, context, position, missing[0]!, missing.length), signal: ctx.signal });
      ctx.recordUsage(result.usage);
      // A request (online, or one imported batch line) stores all its samples atomically, so the missing indices are always a contiguous tail.
      const rows = judgeSampleRows(ctx.runId, chunk.id, missing, result.samples, result.usage, judgePromptOf(settings));
      for (const row of rows) verdicts.set(row.sampleIndex, row.verdict);
      await db.judgeSample.createMany({ data: rows, skipDuplicates: true });
    }
    return majorityVerdict([...verdicts.values()], settings.tiePolicy).verdict;
  };

  const votes: Verdict[] = [];
  if (settings.stopAtFirstNegative) {
    for (let i = 0; i < chunks.length; i++) {
      const vote = await judgeOne(i);
      votes.push(vote);
      if (vote === "Negative") break;
    }
  } else {
    votes.push(...(await Promise.all(chunks.map((_, i) => judgeOne(i)))));
  }
  return { solutionId: solution.id, chunkCount: chunks.length, votes, predictedFirstError: predictFirstError(votes) };
}
