import {
  DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID,
  LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID,
  SELF_SEGMENTING_POLICY_PROMPT_IDS,
  type SelfSegmentingPolicyPromptId,
  type StepwiserJudgePromptId,
  GENPRM_SAMPLING, resolveJudgeSampling, type JudgeProtocolId, buildPoolingInput, buildSelfSegmentingPolicyPrompt, buildStepwiserJudgePrompt, buildThinkPrmMessages, derivedSeed, parseThinkPrmVerification, parseVerdict, positiveShare, readStepProbabilities, serializeChunkTags } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { ChatMessage } from "@stepwiser/inference";
import { z } from "zod";
import { gradeRolloutAnswer } from "../../grading/run-grading";
import { endpointSnapshotSchema, snapshotEndpoint } from "../../inference/endpoint-clients";
import { judgeGenPrmStep } from "../../judging/genprm-judge";
import { isTruncated } from "../../judging/judge-chunks";
import { judgeProtocolFields, refuseJudgePromptOfOtherProtocol, resolveJudgePromptTemplateId } from "../../judging/judge-run";
import type { JudgeOutputCounts } from "../../judging/output-counts";
import { checkJudgeProtocol } from "../../judging/protocol-check";
import { JUDGE_VOTING_TEMPERATURE, refuseIdenticalSamples } from "../../kit/identical-samples";
import { modelOf, usedEndpoint } from "../../kit/kind-facts";
import { planProblemIds, refuseEmptyProblemSelection } from "../../kit/paging";
import type { RunContext, UnitRunKind } from "../../runs/run-kind";
import { chunkResetFormHints } from "./form-hints";
import { chunkResetSummarySchema } from "./summary";

const chunkResetConfigFields = z.object({
  /** Problems with reference answers. */
  datasetId: z.string().min(1),
  policyEndpoint: z.string().min(1),
  policy: endpointSnapshotSchema.optional(),
  judgeEndpoint: z.string().min(1),
  judge: endpointSnapshotSchema.optional(),
  /** The judge's protocol: a stepwise one, whose verdict on the new chunk accepts or rejects it. */
  ...judgeProtocolFields,
  /** The policy's prompt: v2 is the paper's own (Table 11), the default of new runs; runs stored before this field used v1. */
  policyPromptTemplateId: z.enum(SELF_SEGMENTING_POLICY_PROMPT_IDS).optional(),
  /** Attempts per chunk position (spec §5: 5). */
  maxAttempts: z.number().int().min(1).max(32).default(5),
  /** OPEN in the paper: after the last rejected attempt keep the last one (default) or the one the judge scored best. */
  keep: z.enum(["last", "best"]).default("last"),
  /** Judge samples per attempt; the chunk is kept when more than half accept it. */
  judgeSamples: z.number().int().min(1).max(16).default(1),
  /**
   * The judge's sampling temperature, top_p and generation budget. Unset: the protocol's
   * defaults (core's judgeSamplingDefaults for judgeSamples samples), written into the run
   * when it is submitted. judgeSamples > 1 at temperature 0 is refused (identical samples).
   */
  judgeTemperature: z.number().min(0).max(2).optional(),
  judgeTopP: z.number().gt(0).max(1).optional(),
  judgeMaxTokens: z.number().int().min(1).max(65_536).optional(),
  maxChunks: z.number().int().min(1).max(200).default(30),
  temperature: z.number().min(0).max(2).default(1),
  maxTokensPerChunk: z.number().int().min(1).max(16_384).default(1024),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
  limit: z.number().int().min(1).optional(),
  concurrency: z.number().int().min(1).max(4096).default(32),
});
/** A new run's judge sampling: what the config gives over its protocol's defaults. */
type ChunkResetSamplingGiven = {
  protocol: JudgeProtocolId;
  judgeSamples: number;
  judgeTemperature?: number;
  judgeTopP?: number;
  judgeMaxTokens?: number;
  judgePromptTemplateId?: StepwiserJudgePromptId;
  policyPromptTemplateId?: SelfSegmentingPolicyPromptId;
};

function withJudgeSampling<C extends ChunkResetSamplingGiven>(config: C) {
  const resolved = resolveJudgeSampling(config.protocol, { samples: config.judgeSamples, temperature: config.judgeTemperature, topP: config.judgeTopP, maxTokens: config.judgeMaxTokens });
  return {
    ...config,
    judgeTemperature: resolved.temperature,
    judgeTopP: resolved.topP,
    judgeMaxTokens: resolved.maxTokens as number | undefined,
    judgePromptTemplateId: resolveJudgePromptTemplateId(config, false),
    policyPromptTemplateId: config.policyPromptTemplateId ?? DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID,
  };
}

/**
 * A stored run's judge sampling. Runs store what they resolved; runs stored before these
 * fields existed sampled at 1 for votes and 0 for one verdict, with no top_p and no
 * generation budget, except GenPRM with its 0.95 and 2048.
 */
function withStoredJudgeSampling<C extends ChunkResetSamplingGiven>(config: C) {
  const genprm = config.protocol === "genprm";
  return {
    ...config,
    judgeTemperature: config.judgeTemperature ?? defaultJudgeTemperature(config.judgeSamples),
    judgeTopP: config.judgeTopP ?? (genprm ? GENPRM_SAMPLING.topP : undefined),
    judgeMaxTokens: config.judgeMaxTokens ?? (genprm ? GENPRM_SAMPLING.maxTokens : undefined),
    judgePromptTemplateId: resolveJudgePromptTemplateId(config, true),
    policyPromptTemplateId: config.policyPromptTemplateId ?? LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID,
  };
}

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
export const chunkResetStoredConfigSchema = chunkResetConfigFields.transform(withStoredJudgeSampling);

export const chunkResetConfigSchema = chunkResetConfigFields
  .superRefine((config, ctx) => {
    refuseJudgePromptOfOtherProtocol(config, ctx);
    if (config.judgeTemperature === undefined) return;
    refuseIdenticalSamples(ctx, { samplesField: "judgeSamples", samples: config.judgeSamples, temperatureField: "judgeTemperature", temperature: config.judgeTemperature, usual: JUDGE_VOTING_TEMPERATURE });
  })
  .transform(withJudgeSampling);
export type ChunkResetConfig = z.output<typeof chunkResetConfigSchema>;

/** The judge temperature of runs stored before it was resolved from the protocol: votes sampled at 1, a single verdict greedy. */
export function defaultJudgeTemperature(judgeSamples: number): number {
  return judgeSamples > 1 ? 1 : 0;
}

export interface EpisodeResult {
  correct: boolean;
  chunks: number;
  resets: number;
  acceptedTokens: number;
  rejectedTokens: number;
  /** The judge's outputs in the episode: how many, how many cut at the generation limit, how many unreadable otherwise (absent in units stored before they were counted). */
  judgeOutputs?: JudgeOutputCounts;
}

interface Problem {
  id: string;
  /** Seeds derive from the text's hash, not the row id, so any copy of the dataset gives the same episode. */
  textHash: string;
  text: string;
  referenceAnswer: string;
}

/** The policy's next chunk after `prefix` (generation stops at `</chunk>`); null when the solution has ended. */
async function nextChunk(ctx: RunContext<ChunkResetConfig>, problem: Problem, prefix: string[], seed: number): Promise<{ text: string; tokens: number } | null> {
  const policy = ctx.config.policy!;
  const messages: ChatMessage[] = [{ role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: problem.text }, ctx.config.policyPromptTemplateId).text }];
  if (prefix.length) messages.push({ role: "assistant", content: `${serializeChunkTags(prefix)}\n` });
  const result = await ctx.endpoints.get(policy).client.generate({
    model: policy.model,
    prompt: { kind: "chat", messages, continueFinalMessage: prefix.length > 0 },
    stop: ["</chunk>"],
    seed,
    temperature: ctx.config.temperature,
    maxTokens: ctx.config.maxTokensPerChunk,
    affinityKey: `${problem.id}:${prefix.length}`,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  const text = result.samples[0]!.text.replace(/^\s*<chunk>/, "").trim();
  return text ? { text, tokens: result.usage.completionTokens } : null;
}

/** What the judge said of one attempt: whether it keeps the chunk, and a score to rank rejected attempts by. */
interface ChunkVerdict {
  accept: boolean;
  score: number;
  outputs: JudgeOutputCounts;
  /** genprm: the first sample's judgement of the chunk, carried in the conversation of the chunks after it. */
  output?: string;
}

/**
 * The judge's verdict on the newest chunk, under the run's protocol. stepwiser-chunk:
 * the share of samples that say Positive, kept above one half. thinkprm: each
 * sample's chain over the whole prefix and the chunk, the share of chains that call
 * the new (last) step correct, kept above one half (a chain that stops at an earlier
 * step does not vote). genprm: the new step judged in the conversation of the kept
 * chunks' judgements, the share of samples that say Yes kept above one half, scored
 * by the mean P(Yes). discriminative-prm: the new step's probability, kept at or
 * above the threshold.
 */
async function judgeChunk(ctx: RunContext<ChunkResetConfig>, problem: Problem, prefix: string[], chunk: string, seed: number, history: readonly string[]): Promise<ChunkVerdict> {
  const { config } = ctx;
  const judge = config.judge!;
  const client = ctx.endpoints.get(judge).client;
  const steps = [...prefix, chunk];
  if (config.protocol === "discriminative-prm") {
    const input = buildPoolingInput(config.protocolOptions.prmVariant, { problem: problem.text, steps });
    const result = await client.pool({ model: judge.model, ...input, signal: ctx.signal });
    ctx.recordUsage(result.usage);
    const read = readStepProbabilities(config.protocolOptions.prmVariant, result.body, steps.length);
    const score = "scores" in read ? read.scores[steps.length - 1]! : 0;
    return { accept: "scores" in read && score >= config.protocolOptions.threshold, score, outputs: { outputs: 1, truncated: 0, unparseable: "scores" in read ? 0 : 1 } };
  }
  if (config.protocol === "thinkprm") {
    const request = buildThinkPrmMessages({ problem: problem.text, steps });
    const result = await client.generate({
      model: judge.model,
      prompt: { kind: "chat", messages: request.messages, continueFinalMessage: true },
      n: config.judgeSamples,
      seed,
      temperature: config.judgeTemperature,
      topP: config.judgeTopP,
      maxTokens: config.judgeMaxTokens,
      stop: request.stop,
      signal: ctx.signal,
    });
    ctx.recordUsage(result.usage);
    const verdicts = result.samples.map((s) => parseThinkPrmVerification(s.text, steps.length).verdicts[steps.length - 1] ?? "unparseable");
    const score = positiveShare(verdicts) ?? 0;
    return { accept: score > 0.5, score, outputs: outputCounts(result.samples, verdicts) };
  }
  if (config.protocol === "genprm") {
    const samples = await judgeGenPrmStep({
      client,
      model: judge.model,
      problem: problem.text,
      steps,
      position: prefix.length,
      previousOutputs: history,
      samples: config.judgeSamples,
      seed,
      temperature: config.judgeTemperature,
      topP: config.judgeTopP,
      maxTokens: config.judgeMaxTokens ?? GENPRM_SAMPLING.maxTokens,
      options: config.protocolOptions,
      signal: ctx.signal,
      recordUsage: (usage, requests) => ctx.recordUsage(usage, requests),
    });
    const scores = samples.map((s) => s.score).filter((s): s is number => s !== null);
    const share = positiveShare(samples.map((s) => s.verdict)) ?? 0;
    return {
      accept: share > 0.5,
      score: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : share,
      output: samples[0]?.output ?? "",
      outputs: outputCounts(samples.map((s) => ({ finishReason: s.truncated ? "length" : "stop" })), samples.map((s) => s.verdict)),
    };
  }
  const prompt = buildStepwiserJudgePrompt({ problem: problem.text, previousChunks: prefix, chunk }, config.judgePromptTemplateId);
  const result = await client.generate({
    model: judge.model,
    prompt: { kind: "chat", messages: [{ role: "user", content: prompt.text }] },
    n: config.judgeSamples,
    seed,
    temperature: config.judgeTemperature,
    topP: config.judgeTopP,
    maxTokens: config.judgeMaxTokens,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  const verdicts = result.samples.map((s) => parseVerdict(s.text).verdict);
  const score = positiveShare(verdicts) ?? 0;
  return { accept: score > 0.5, score, outputs: outputCounts(result.samples, verdicts) };
}

/**
 * One episode (spec §5): generate a chunk, let the judge look at it, and on a
 * Negative discard it and regenerate from the same prefix, up to maxAttempts
 * times per position. With `judged` false it is plain sampling with the same
 * first-attempt seeds: the baseline the reset is compared against.
 */
export async function runEpisode(ctx: RunContext<ChunkResetConfig>, problem: Problem, judged: boolean): Promise<EpisodeResult> {
  const { maxAttempts, maxChunks, keep, seed } = ctx.config;
  const prefix: string[] = [];
  // genprm's conversation: its judgement of each kept chunk.
  const history: string[] = [];
  let resets = 0;
  let acceptedTokens = 0;
  let rejectedTokens = 0;
  const judgeOutputs: JudgeOutputCounts = { outputs: 0, truncated: 0, unparseable: 0 };
  for (let position = 0; position < maxChunks; position++) {
    const attempts: Array<{ text: string; tokens: number; score: number; output?: string }> = [];
    let accepted: { text: string; tokens: number; output?: string } | null = null;
    for (let attempt = 0; attempt < (judged ? maxAttempts : 1); attempt++) {
      const chunk = await nextChunk(ctx, problem, prefix, derivedSeed(seed, problem.textHash, position, attempt));
      if (!chunk) break;
      if (!judged) {
        accepted = chunk;
        break;
      }
      const verdict = await judgeChunk(ctx, problem, prefix, chunk.text, derivedSeed("judge", seed, problem.textHash, position, attempt), history);
      judgeOutputs.outputs += verdict.outputs.outputs;
      judgeOutputs.truncated += verdict.outputs.truncated;
      judgeOutputs.unparseable += verdict.outputs.unparseable;
      const judgedAttempt = { ...chunk, score: verdict.score, ...(verdict.output === undefined ? {} : { output: verdict.output }) };
      attempts.push(judgedAttempt);
      if (verdict.accept) {
        accepted = judgedAttempt;
        break;
      }
      resets += attempt < maxAttempts - 1 ? 1 : 0;
    }
    if (judged && !accepted && attempts.length > 0) {
      // Every attempt was rejected: keep the last, or the best-scored (ties: the later one).
      accepted = keep === "last" ? attempts[attempts.length - 1]! : attempts.reduce((best, a) => (a.score >= best.score ? a : best));
    }
    if (!accepted) break; // the policy ended its solution
    for (const a of attempts) if (a !== accepted) rejectedTokens += a.tokens;
    acceptedTokens += accepted.tokens;
    prefix.push(accepted.text);
    if (accepted.output !== undefined) history.push(accepted.output);
    if (accepted.text.includes("\\boxed")) break;
  }
  const correct = (await gradeRolloutAnswer(problem.referenceAnswer, prefix.join("\n\n"))).equivalent;
  return { correct, chunks: prefix.length, resets, acceptedTokens, rejectedTokens, ...(judged ? { judgeOutputs } : {}) };
}

/** One judge request's samples counted: cut at the limit, or ended without a readable verdict. */
function outputCounts(samples: ReadonlyArray<{ finishReason?: string | null }>, verdicts: readonly string[]): JudgeOutputCounts {
  let truncated = 0;
  let unparseable = 0;
  samples.forEach((sample, i) => {
    if (isTruncated(sample)) truncated += 1;
    else if (verdicts[i] === "unparseable") unparseable += 1;
  });
  return { outputs: samples.length, truncated, unparseable };
}

function planProblems(db: Db, config: ChunkResetConfig): AsyncGenerator<string> {
  return planProblemIds(db, { datasetId: config.datasetId, limit: config.limit, withReference: true });
}

export const chunkResetKind: UnitRunKind<ChunkResetConfig, z.output<typeof chunkResetSummarySchema>> = {
  kind: "chunk_reset",
  execution: "units",
  submitSchema: chunkResetConfigSchema,
  storedSchema: chunkResetStoredConfigSchema,
  summarySchema: chunkResetSummarySchema,
  formHints: chunkResetFormHints,
  endpoints: (config) => [...usedEndpoint("policy", config.policy), ...usedEndpoint("judge", config.judge)],
  facts: (config) => [modelOf(config.policy, config.policyEndpoint, "policy"), `judge ${modelOf(config.judge, config.judgeEndpoint, "judge")}`, `attempts ${config.maxAttempts}`],
  async snapshot(db, config) {
    const snapshot = { ...config, policy: await snapshotEndpoint(db, config.policyEndpoint, "policyEndpoint"), judge: await snapshotEndpoint(db, config.judgeEndpoint, "judgeEndpoint") };
    checkJudgeProtocol("chunk_reset", { ...snapshot, samples: snapshot.judgeSamples, samplesField: "judgeSamples" }, snapshot.judge, "judgeEndpoint");
    return snapshot;
  },
  datasetId: (config) => config.datasetId,
  plan: (ctx) => planProblems(ctx.db, ctx.config),
  refuseEmptyPlan: (db, config) => refuseEmptyProblemSelection(db, { datasetId: config.datasetId, withReference: true }),
  concurrency: (config) => config.concurrency,

  // Seeds make an episode deterministic, so a redone unit reproduces its result.
  async runUnit(ctx, problemId) {
    const row = await ctx.db.problem.findUniqueOrThrow({ where: { id: problemId }, select: { id: true, textHash: true, text: true, referenceAnswer: true } });
    const problem = { id: row.id, textHash: row.textHash, text: row.text, referenceAnswer: row.referenceAnswer! };
    const [reset, plain] = await Promise.all([runEpisode(ctx, problem, true), runEpisode(ctx, problem, false)]);
    return { reset, plain };
  },

  async summarize(ctx) {
    const units = await ctx.db.runUnit.findMany({ where: { runId: ctx.runId, status: "done" }, select: { result: true } });
    const results = units.map((u) => u.result as unknown as { reset: EpisodeResult; plain: EpisodeResult });
    const n = results.length;
    const sum = (pick: (r: { reset: EpisodeResult; plain: EpisodeResult }) => number) => results.reduce((total, r) => total + pick(r), 0);
    return {
      problems: n,
      accuracy: { chunkReset: n ? sum((r) => (r.reset.correct ? 1 : 0)) / n : 0, plain: n ? sum((r) => (r.plain.correct ? 1 : 0)) / n : 0 },
      tokens: { accepted: sum((r) => r.reset.acceptedTokens), rejected: sum((r) => r.reset.rejectedTokens), plain: sum((r) => r.plain.acceptedTokens) },
      resetsPerProblem: n ? sum((r) => r.reset.resets) / n : 0,
      judgeOutputs: { outputs: sum((r) => r.reset.judgeOutputs?.outputs ?? 0), truncated: sum((r) => r.reset.judgeOutputs?.truncated ?? 0), unparseable: sum((r) => r.reset.judgeOutputs?.unparseable ?? 0) },
      ...(ctx.config.judgePromptTemplateId ? { judgePromptTemplateId: ctx.config.judgePromptTemplateId } : {}),
      policyPromptTemplateId: ctx.config.policyPromptTemplateId,
    };
  },
};
