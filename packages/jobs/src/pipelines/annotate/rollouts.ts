import { buildSelfSegmentingPolicyPrompt, derivedSeed, gradeAnswer, serializeChunkTags } from "@stepwiser/core";
import type { ChatMessage } from "@stepwiser/inference";
import type { RunContext } from "../../runs/run-kind";
import type { AnnotateConfig } from "./config";

/** What a unit knows about the solution it annotates. */
export interface SolutionUnderAnnotation {
  segmentationId: string;
  externalId: string;
  problemText: string;
  referenceAnswer: string;
  chunks: string[];
}

/**
 * Seed of sample 0 from a prefix: derived from the run seed, the solution's
 * stable id and the prefix length, so the same config reproduces the same
 * rollouts in any database. Sample i uses this + i.
 */
export function prefixSeed(runSeed: number, externalId: string, prefixLength: number): number {
  return derivedSeed(runSeed, externalId, prefixLength);
}

/** The policy prompt, with the first `prefixLength` chunks as the assistant's message to continue. */
export function rolloutMessages(solution: SolutionUnderAnnotation, prefixLength: number): { messages: ChatMessage[]; continueFinalMessage: boolean; prefixText: string } {
  const user: ChatMessage = { role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: solution.problemText }).text };
  if (prefixLength === 0) return { messages: [user], continueFinalMessage: false, prefixText: "" };
  const prefixText = `${serializeChunkTags(solution.chunks.slice(0, prefixLength))}\n`;
  return { messages: [user, { role: "assistant", content: prefixText }], continueFinalMessage: true, prefixText };
}

/**
 * Outcomes of the rollouts with the given sample indices from one prefix. Stored
 * rollouts are reused (a unit redone after a crash never samples twice); missing
 * ones are requested together, each contiguous range as one request with n and a
 * seed, so the replica's prefix cache serves the shared prompt.
 */
export async function rolloutOutcomes(
  ctx: RunContext<AnnotateConfig>,
  solution: SolutionUnderAnnotation,
  prefixLength: number,
  sampleIndices: readonly number[],
): Promise<boolean[]> {
  const { db, config, runId } = ctx;
  const stored = await db.rollout.findMany({
    where: { runId, segmentationId: solution.segmentationId, prefixLength, sampleIndex: { in: [...sampleIndices] } },
    select: { sampleIndex: true, correct: true },
  });
  const outcome = new Map(stored.map((r) => [r.sampleIndex, r.correct]));
  const missing = sampleIndices.filter((i) => !outcome.has(i)).sort((a, b) => a - b);
  if (missing.length > 0) {
    const policy = config.policy!;
    const { client } = ctx.endpoints.get(policy);
    const base = prefixSeed(config.seed, solution.externalId, prefixLength);
    const { messages, continueFinalMessage, prefixText } = rolloutMessages(solution, prefixLength);
    for (const range of contiguousRanges(missing)) {
      const result = await client.generate({
        model: policy.model,
        prompt: { kind: "chat", messages, continueFinalMessage },
        n: range.length,
        seed: base + range[0]!,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        affinityKey: `${solution.segmentationId}:${prefixLength}`,
        signal: ctx.signal,
      });
      ctx.recordUsage(result.usage);
      const rows = result.samples.map((sample, i) => {
        const graded = gradeAnswer(solution.referenceAnswer, prefixText + sample.text, { timeLimitMs: 1000 });
        return {
          runId,
          segmentationId: solution.segmentationId,
          prefixLength,
          sampleIndex: range[i]!,
          seed: base + range[i]!,
          text: sample.text,
          extractedAnswer: graded.pred.extracted,
          correct: graded.equivalent,
          completionTokens: Math.round(result.usage.completionTokens / result.samples.length),
        };
      });
      await db.rollout.createMany({ data: rows, skipDuplicates: true });
      for (const row of rows) outcome.set(row.sampleIndex, row.correct);
    }
  }
  return sampleIndices.map((i) => outcome.get(i)!);
}

function contiguousRanges(sorted: readonly number[]): number[][] {
  const ranges: number[][] = [];
  for (const value of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last[last.length - 1] === value - 1) last.push(value);
    else ranges.push([value]);
  }
  return ranges;
}
