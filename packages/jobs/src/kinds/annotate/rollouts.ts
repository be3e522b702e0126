import { contiguousRanges } from "../../kit/sample-ranges";
import { buildSelfSegmentingPolicyPrompt, derivedSeed, serializeChunkTags, storedRolloutText, type SelfSegmentingPolicyPromptId } from "@stepwiser/core";
import type { Prisma } from "@stepwiser/db";
import type { ChatMessage, GenerationRequest } from "@stepwiser/inference";
import { gradeRolloutAnswer } from "../../grading/run-grading";
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
export function rolloutMessages(
  solution: SolutionUnderAnnotation,
  prefixLength: number,
  promptTemplateId?: SelfSegmentingPolicyPromptId,
): { messages: ChatMessage[]; continueFinalMessage: boolean; prefixText: string } {
  const user: ChatMessage = { role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: solution.problemText }, promptTemplateId).text };
  if (prefixLength === 0) return { messages: [user], continueFinalMessage: false, prefixText: "" };
  const prefixText = `${serializeChunkTags(solution.chunks.slice(0, prefixLength))}\n`;
  return { messages: [user, { role: "assistant", content: prefixText }], continueFinalMessage: true, prefixText };
}

/**
 * The request for samples `first .. first + count - 1` of one prefix: one request
 * with n and the seed of its first sample, sent online and written to batch files alike.
 */
export function rolloutRequest(config: AnnotateConfig, solution: SolutionUnderAnnotation, prefixLength: number, first: number, count: number): GenerationRequest {
  const { messages, continueFinalMessage } = rolloutMessages(solution, prefixLength, config.promptTemplateId);
  return {
    model: config.policy!.model,
    prompt: { kind: "chat", messages, continueFinalMessage },
    n: count,
    seed: prefixSeed(config.seed, solution.externalId, prefixLength) + first,
    temperature: config.temperature,
    maxTokens: config.maxTokens,
    affinityKey: `${solution.segmentationId}:${prefixLength}`,
  };
}

/**
 * The Rollout rows of one answered request, graded against the reference: what
 * an online request stores and what an imported batch output line stores.
 * `texts[i]` is sample `sampleIndices[i]`; the request's completion tokens are
 * spread evenly over its samples (servers report usage per request only). The
 * samples are graded at once on the grading threads, each under the hard limit.
 */
export async function gradedRolloutRows(
  runId: string,
  solution: SolutionUnderAnnotation,
  prefixLength: number,
  config: Pick<AnnotateConfig, "seed" | "rolloutText">,
  sampleIndices: readonly number[],
  texts: readonly string[],
  completionTokens: number,
): Promise<Prisma.RolloutCreateManyInput[]> {
  const base = prefixSeed(config.seed, solution.externalId, prefixLength);
  const { prefixText } = rolloutMessages(solution, prefixLength);
  const graded = await Promise.all(texts.map((text) => gradeRolloutAnswer(solution.referenceAnswer, prefixText + text)));
  return texts.map((text, i) => ({
    runId,
    segmentationId: solution.segmentationId,
    prefixLength,
    sampleIndex: sampleIndices[i]!,
    seed: base + sampleIndices[i]!,
    text: storedRolloutText(config.rolloutText, text),
    extractedAnswer: graded[i]!.pred.extracted,
    correct: graded[i]!.equivalent,
    completionTokens: Math.round(completionTokens / texts.length),
  }));
}

/**
 * Writes Rollout rows in one statement, the columns as arrays, skipping rows a
 * unit redone elsewhere already wrote (as createMany's skipDuplicates does).
 * Prisma's createMany builds and interprets a query plan per call that costs
 * the worker more CPU than the rows themselves; this is the annotate hot path.
 * A rollout's key is its place, so no id is made.
 */
export async function insertRolloutRows(db: Pick<Prisma.TransactionClient, "$executeRaw">, rows: readonly Prisma.RolloutCreateManyInput[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.$executeRaw`
    INSERT INTO "Rollout" ("runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, "extractedAnswer", correct, "completionTokens", "createdAt")
    SELECT v.run, v.segmentation, v.prefix, v.sample, v.seed, v.text, v.answer, v.correct, v.tokens, now() AT TIME ZONE 'UTC'
      FROM unnest(${rows.map((r) => r.runId)}::text[], ${rows.map((r) => r.segmentationId)}::text[], ${rows.map((r) => r.prefixLength)}::int[],
                  ${rows.map((r) => r.sampleIndex)}::int[], ${rows.map((r) => r.seed)}::int[], ${rows.map((r) => r.text ?? null)}::text[],
                  ${rows.map((r) => r.extractedAnswer ?? null)}::text[], ${rows.map((r) => r.correct)}::boolean[], ${rows.map((r) => r.completionTokens ?? 0)}::int[])
           AS v(run, segmentation, prefix, sample, seed, text, answer, correct, tokens)
    ON CONFLICT ("runId", "segmentationId", "prefixLength", "sampleIndex") DO NOTHING`;
}

/** A solution's stored rollout outcomes in one run: prefix length → sample index → correct. */
export type StoredOutcomes = Map<number, Map<number, boolean>>;

/**
 * What a run has already stored for one solution, read in one query when its
 * unit starts (rather than one per prefix): a unit redone after a crash, or a
 * run whose requests were answered offline, finds its rollouts here.
 */
export async function storedRolloutOutcomes(db: RunContext<AnnotateConfig>["db"], runId: string, segmentationId: string): Promise<StoredOutcomes> {
  const rows = await db.rollout.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, sampleIndex: true, correct: true } });
  const outcomes: StoredOutcomes = new Map();
  for (const row of rows) {
    let prefix = outcomes.get(row.prefixLength);
    if (!prefix) outcomes.set(row.prefixLength, (prefix = new Map()));
    prefix.set(row.sampleIndex, row.correct);
  }
  return outcomes;
}

/**
 * Outcomes of the rollouts with the given sample indices from one prefix. Stored
 * rollouts are reused (a unit redone after a crash, or a run whose requests were
 * answered offline, never samples twice); missing ones are requested together,
 * each contiguous range as one request with n and a seed, so the replica's prefix
 * cache serves the shared prompt. `stored` is the solution's outcomes read when
 * its unit started; the outcomes of new rollouts are added to it, so a later
 * round of the same unit reuses them too.
 */
export async function rolloutOutcomes(
  ctx: RunContext<AnnotateConfig>,
  solution: SolutionUnderAnnotation,
  prefixLength: number,
  sampleIndices: readonly number[],
  stored: StoredOutcomes,
): Promise<boolean[]> {
  const { db, config, runId } = ctx;
  let outcome = stored.get(prefixLength);
  if (!outcome) stored.set(prefixLength, (outcome = new Map()));
  const missing = sampleIndices.filter((i) => !outcome.has(i)).sort((a, b) => a - b);
  if (missing.length > 0) {
    const { client } = ctx.endpoints.get(config.policy!);
    for (const range of contiguousRanges(missing)) {
      const result = await client.generate({ ...rolloutRequest(config, solution, prefixLength, range[0]!, range.length), signal: ctx.signal });
      ctx.recordUsage(result.usage);
      const rows = await gradedRolloutRows(runId, solution, prefixLength, config, range, result.samples.map((sample) => sample.text), result.usage.completionTokens);
      await insertRolloutRows(db, rows);
      for (const row of rows) outcome.set(row.sampleIndex, row.correct);
    }
  }
  return sampleIndices.map((i) => outcome.get(i)!);
}
