import { buildStepwiserJudgePrompt, derivedSeed, majorityVerdict, parseVerdict, predictFirstError, STEPWISER_JUDGE_PROMPT, type TiePolicy, type Verdict } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { RunContext } from "../../runs/run-kind";
import type { EndpointSnapshot } from "../../inference/endpoint-clients";

export interface JudgeSettings {
  judge?: EndpointSnapshot;
  samples: number;
  temperature: number;
  maxTokens: number;
  seed: number;
  tiePolicy: TiePolicy;
  /** Stop judging a solution at its first chunk voted Negative (enough for a first-error prediction). */
  stopAtFirstNegative: boolean;
}

export interface JudgedSolution {
  trajectoryId: string;
  chunkCount: number;
  /** Majority verdict per judged chunk, in order (shorter than the solution when stopped early). */
  votes: Verdict[];
  predictedFirstError: number | null;
}

/** Seed of sample 0 for one chunk: run seed, solution id and chunk index. */
export function judgeSeed(runSeed: number, externalId: string, chunkIndex: number): number {
  return derivedSeed("judge", runSeed, externalId, chunkIndex);
}

/**
 * Judges the chunks of one segmentation with the StepWiser prompt (problem,
 * history = the chunks before, the chunk): K samples per chunk in one request,
 * every rationale stored, majority vote with the tie policy. Stored samples are
 * reused, so a redone unit sends only what is missing.
 */
export async function judgeSegmentation(ctx: RunContext<JudgeSettings>, db: Db, segmentationId: string): Promise<JudgedSolution> {
  const settings = ctx.config;
  const segmentation = await db.segmentation.findUniqueOrThrow({
    where: { id: segmentationId },
    select: {
      chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } },
      trajectory: { select: { id: true, externalId: true, problem: { select: { text: true } } } },
    },
  });
  const { chunks, trajectory } = segmentation;
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
      const judge = settings.judge!;
      const prompt = buildStepwiserJudgePrompt({ problem: trajectory.problem.text, previousChunks: chunks.slice(0, position).map((c) => c.text), chunk: chunk.text });
      const first = missing[0]!;
      const result = await ctx.endpoints.get(judge).client.generate({
        model: judge.model,
        prompt: { kind: "chat", messages: [{ role: "user", content: prompt.text }] },
        n: missing.length,
        seed: judgeSeed(settings.seed, trajectory.externalId, chunk.index) + first,
        temperature: settings.temperature,
        maxTokens: settings.maxTokens,
        affinityKey: `${segmentationId}:${position}`,
        signal: ctx.signal,
      });
      ctx.recordUsage(result.usage);
      // One request writes all its samples in one statement, so the missing indices are always a contiguous tail.
      const rows = result.samples.map((sample, i) => {
        const sampleIndex = missing[i]!;
        const verdict = parseVerdict(sample.text).verdict;
        verdicts.set(sampleIndex, verdict);
        return {
          runId: ctx.runId,
          chunkId: chunk.id,
          sampleIndex,
          promptTemplateId: STEPWISER_JUDGE_PROMPT.id,
          rationale: sample.text,
          verdict,
          promptTokens: i === 0 ? result.usage.promptTokens : 0,
          completionTokens: Math.round(result.usage.completionTokens / result.samples.length),
        };
      });
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
  return { trajectoryId: trajectory.id, chunkCount: chunks.length, votes, predictedFirstError: predictFirstError(votes) };
}
