import {
  buildPoolingInput,
  buildProcessBenchCriticPrompt,
  buildThinkPrmDecisionMessages,
  buildThinkPrmMessages,
  judgeProtocolRef,
  majorityVerdict,
  parseThinkPrmVerification,
  positiveShare,
  predictFirstError,
  readStepProbabilities,
  stepVerdicts,
  thinkPrmDecisionScore,
  voteCriticSamples,
  type JudgeProtocolId,
  type Verdict,
} from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import type { RunContext } from "../runs/run-kind";
import { judgeGenPrmSolution } from "./genprm-judge";
import { isTruncated, judgeSeed, judgeSegmentation, type JudgeSettings } from "./judge-chunks";
import type { ProtocolOptions } from "./judge-run";

/** A judge's settings with its protocol: what judge, benchmark and best-of-N runs pass down. */
export interface ProtocolJudgeSettings extends JudgeSettings {
  protocol: JudgeProtocolId;
  protocolOptions: ProtocolOptions;
  /** processbench-critic's template. */
  criticPromptTemplateId?: "processbench-critic@v1" | "processbench-critic@v2";
}

/** One solution as a protocol judged it. */
export interface ProtocolJudgement {
  solutionId: string;
  chunkCount: number;
  /** Majority verdict per judged chunk, in order (shorter when the judge stopped early; empty for the critic). */
  votes: Verdict[];
  predictedFirstError: number | null;
  /** The solution-level row to store (SolutionPrediction's evidence), for protocols that judge the whole solution in one request. */
  solution: SolutionEvidence | null;
}

export interface SolutionEvidence {
  score: number | null;
  output: string | null;
  samples: Prisma.InputJsonValue | null;
  promptTokens: number;
  completionTokens: number;
}

export interface SegmentationForJudge {
  solutionId: string;
  externalId: string;
  problemText: string;
  chunks: Array<{ id: string; index: number; text: string }>;
}

export async function loadSegmentationForJudge(db: Db, segmentationId: string): Promise<SegmentationForJudge> {
  const segmentation = await db.segmentation.findUniqueOrThrow({
    where: { id: segmentationId },
    select: {
      chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } },
      solution: { select: { id: true, externalId: true, problem: { select: { text: true } } } },
    },
  });
  return { solutionId: segmentation.solution.id, externalId: segmentation.solution.externalId, problemText: segmentation.solution.problem.text, chunks: segmentation.chunks };
}

/** Votes and chunk scores from stored samples, chunk by chunk in order, up to the last judged chunk. */
export function votesOfSamples(
  chunks: ReadonlyArray<{ id: string }>,
  samples: ReadonlyArray<{ chunkId: string; verdict: Verdict; score: number | null }>,
  tiePolicy: JudgeSettings["tiePolicy"],
): { votes: Verdict[]; chunkScores: Array<number | null> } {
  const votes: Verdict[] = [];
  const chunkScores: Array<number | null> = [];
  for (const chunk of chunks) {
    const own = samples.filter((s) => s.chunkId === chunk.id);
    if (own.length === 0) break;
    votes.push(majorityVerdict(own.map((s) => s.verdict), tiePolicy).verdict);
    const scores = own.map((s) => s.score).filter((s): s is number => s !== null);
    chunkScores.push(scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : positiveShare(own.map((s) => s.verdict)));
  }
  return { votes, chunkScores };
}

/**
 * Judges one segmentation with the run's protocol, storing every sample's evidence:
 * JudgeSample rows per judged chunk (all stepwise protocols but the critic) and,
 * for protocols that answer per solution, the evidence the caller stores with the
 * solution's prediction. A redone unit reuses what an earlier attempt stored.
 */
export async function judgeWithProtocol(ctx: RunContext<ProtocolJudgeSettings>, segmentationId: string): Promise<ProtocolJudgement> {
  const { db, config } = ctx;
  switch (config.protocol) {
    case "stepwiser-chunk":
      return { ...(await judgeSegmentation(ctx, db, segmentationId)), solution: null };
    case "processbench-critic":
      return judgeWithCritic(ctx, await loadSegmentationForJudge(db, segmentationId));
    case "thinkprm":
      return judgeWithThinkPrm(ctx, await loadSegmentationForJudge(db, segmentationId));
    case "genprm":
      return judgeGenPrmSolution(ctx, await loadSegmentationForJudge(db, segmentationId));
    case "discriminative-prm":
      return judgeWithPooling(ctx, await loadSegmentationForJudge(db, segmentationId));
    case "outcome-pointwise":
    case "outcome-pairwise":
      throw new Error(`${config.protocol} judges whole solutions for best-of-N; it gives no verdict per step`);
  }
}

/**
 * The ProcessBench critic: K samples of one request with n = K (as `run_eval.py` asks vLLM
 * for n = voting_n), each read by the run's template's own parser, the prediction the
 * most common answer (core's voteCriticSamples). Every sample is stored with its answer,
 * its vote and whether the server cut it at the generation limit.
 */
async function judgeWithCritic(ctx: RunContext<ProtocolJudgeSettings>, solution: SegmentationForJudge): Promise<ProtocolJudgement> {
  const { config } = ctx;
  const stored = await storedSolutionJudgement(ctx, solution);
  if (stored) return stored;
  const judge = config.judge!;
  const templateId = config.criticPromptTemplateId ?? "processbench-critic@v2";
  // The run's critic template builds the prompt and, with its own parser, reads the answers.
  const prompt = buildProcessBenchCriticPrompt({ problem: solution.problemText, steps: solution.chunks.map((c) => c.text) }, templateId);
  const result = await ctx.endpoints.get(judge).client.generate({
    model: judge.model,
    prompt: { kind: "chat", messages: [{ role: "user", content: prompt.text }] },
    n: config.samples,
    seed: judgeSeed(config.seed, solution.externalId, -1),
    temperature: config.temperature,
    ...(config.topP === undefined ? {} : { topP: config.topP }),
    maxTokens: config.maxTokens,
    affinityKey: `${solution.solutionId}:critic`,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  const outputs = result.samples.map((sample) => sample.text);
  const vote = voteCriticSamples(outputs, templateId);
  const samples: CriticSampleEvidence[] = result.samples.map((sample, index) => ({
    output: sample.text,
    answer: vote.samples[index]!.answer,
    vote: vote.samples[index]!.vote,
    truncated: isTruncated(sample),
  }));
  return {
    solutionId: solution.solutionId,
    chunkCount: solution.chunks.length,
    votes: [],
    predictedFirstError: vote.prediction,
    solution: {
      score: null,
      output: outputs[0] ?? null,
      samples: samples as unknown as Prisma.InputJsonValue,
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
    },
  };
}

/** One critic sample as a SolutionPrediction's `samples` keeps it. */
export interface CriticSampleEvidence {
  output: string;
  /** The answer its template's reading counts (v2: the official extract_answer string), null without one. */
  answer: string | null;
  /** Its own prediction: the parsed index, null when unparseable. */
  vote: number | null;
  /** Cut at the generation limit (finish reason "length"). */
  truncated: boolean;
}

/** Top alternatives asked for on a decision token: ThinkPRM's and GenPRM's code read 20. */
export const DECISION_TOP_LOGPROBS = 20;

/**
 * ThinkPRM (spec of the protocol in docs/DOMAIN.md): per sample, one verification
 * chain over the numbered steps, then the decision token after "Is the solution
 * correct? " with its log-probabilities. Step verdicts come from the chain's
 * \boxed{correct}/\boxed{incorrect}; the solution's score is the mean P(yes).
 */
async function judgeWithThinkPrm(ctx: RunContext<ProtocolJudgeSettings>, solution: SegmentationForJudge): Promise<ProtocolJudgement> {
  const { db, config, runId } = ctx;
  const stored = await storedSolutionJudgement(ctx, solution);
  if (stored) return stored;
  const judge = config.judge!;
  const client = ctx.endpoints.get(judge).client;
  const steps = solution.chunks.map((c) => c.text);
  const request = buildThinkPrmMessages({ problem: solution.problemText, steps });
  const seed = judgeSeed(config.seed, solution.externalId, -1);
  const chains = await client.generate({
    model: judge.model,
    prompt: { kind: "chat", messages: request.messages, continueFinalMessage: true },
    n: config.samples,
    seed,
    temperature: config.temperature,
    ...(config.topP === undefined ? {} : { topP: config.topP }),
    maxTokens: config.maxTokens,
    stop: request.stop,
    affinityKey: `${solution.solutionId}:thinkprm`,
    signal: ctx.signal,
  });
  ctx.recordUsage(chains.usage);
  let promptTokens = chains.usage.promptTokens;
  let completionTokens = chains.usage.completionTokens;
  const rows: Prisma.JudgeSampleCreateManyInput[] = [];
  const evidence: Array<{ text: string; verdicts: Verdict[]; predictedFirstError: number | null; score: number | null; decision: string | null; problem: string | null; truncated: boolean }> = [];
  for (const [sampleIndex, sample] of chains.samples.entries()) {
    const decision = await client.generate({
      model: judge.model,
      prompt: { kind: "chat", messages: buildThinkPrmDecisionMessages(request.messages, sample.text), continueFinalMessage: true },
      seed: seed + sampleIndex,
      temperature: 0,
      maxTokens: 1,
      logprobs: true,
      topLogprobs: DECISION_TOP_LOGPROBS,
      affinityKey: `${solution.solutionId}:thinkprm`,
      signal: ctx.signal,
    });
    ctx.recordUsage(decision.usage);
    promptTokens += decision.usage.promptTokens;
    completionTokens += decision.usage.completionTokens;
    const parsed = parseThinkPrmVerification(sample.text, steps.length);
    const score = thinkPrmDecisionScore(decision.samples[0]?.logprobs?.[0]);
    const truncated = isTruncated(sample);
    evidence.push({ text: sample.text, verdicts: parsed.verdicts, predictedFirstError: parsed.predictedFirstError, score, decision: decision.samples[0]?.text ?? null, problem: parsed.problem ?? null, truncated });
    parsed.verdicts.forEach((verdict, position) => {
      rows.push({
        runId,
        chunkId: solution.chunks[position]!.id,
        sampleIndex,
        promptTemplateId: judgeProtocolRef("thinkprm"),
        rationale: parsed.rationales[position] ?? "",
        verdict,
        score: null,
        truncated,
        promptTokens: 0,
        completionTokens: 0,
      });
    });
  }
  const scores = evidence.map((e) => e.score).filter((s): s is number => s !== null);
  const solutionEvidence: SolutionEvidence = {
    score: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null,
    output: evidence[0]?.text ?? null,
    samples: evidence as unknown as Prisma.InputJsonValue,
    promptTokens,
    completionTokens,
  };
  await db.judgeSample.createMany({ data: rows, skipDuplicates: true });
  const { votes } = votesOfSamples(solution.chunks, rows.map((r) => ({ chunkId: r.chunkId, verdict: r.verdict as Verdict, score: null })), config.tiePolicy);
  return { solutionId: solution.solutionId, chunkCount: solution.chunks.length, votes, predictedFirstError: thinkPrmPrediction(votes, steps.length, config.samples, evidence), solution: solutionEvidence };
}

/**
 * The first error ThinkPRM's chains point to. One sample: the chain's own reading
 * (null when it stopped before the last step without an incorrect one). Several:
 * the majority vote per step, the first Negative; a step no chain reached before
 * any Negative leaves the prediction unparseable.
 */
function thinkPrmPrediction(votes: readonly Verdict[], stepCount: number, samples: number, evidence: ReadonlyArray<{ predictedFirstError: number | null }>): number | null {
  if (samples === 1) return evidence[0]?.predictedFirstError ?? null;
  const first = predictFirstError(votes);
  if (first === null || first >= 0) return first;
  return votes.length === stepCount ? -1 : null;
}

/** A solution-level judgement an earlier attempt of the unit already stored (its prediction row and samples). */
async function storedSolutionJudgement(ctx: RunContext<ProtocolJudgeSettings>, solution: SegmentationForJudge): Promise<ProtocolJudgement | null> {
  const row = await ctx.db.solutionPrediction.findUnique({
    where: { runId_solutionId: { runId: ctx.runId, solutionId: solution.solutionId } },
    select: { predictedFirstError: true, score: true, output: true, samples: true, promptTokens: true, completionTokens: true },
  });
  if (!row) return null;
  const samples = await ctx.db.judgeSample.findMany({ where: { runId: ctx.runId, chunkId: { in: solution.chunks.map((c) => c.id) } }, select: { chunkId: true, verdict: true, score: true } });
  const { votes } = votesOfSamples(solution.chunks, samples, ctx.config.tiePolicy);
  return {
    solutionId: solution.solutionId,
    chunkCount: solution.chunks.length,
    votes,
    predictedFirstError: row.predictedFirstError,
    solution: { score: row.score, output: row.output, samples: (row.samples ?? null) as Prisma.InputJsonValue | null, promptTokens: row.promptTokens, completionTokens: row.completionTokens },
  };
}

/**
 * A discriminative PRM over vLLM's pooling API: one request per solution, one
 * probability per step; a step is Positive when its probability reaches the
 * threshold. The probabilities are stored as the samples' scores.
 */
async function judgeWithPooling(ctx: RunContext<ProtocolJudgeSettings>, solution: SegmentationForJudge): Promise<ProtocolJudgement> {
  const { db, config, runId } = ctx;
  const { threshold, prmVariant } = config.protocolOptions;
  const stored = await db.judgeSample.findMany({ where: { runId, chunkId: { in: solution.chunks.map((c) => c.id) } }, select: { chunkId: true, verdict: true, score: true } });
  let rows = stored;
  let usage = { promptTokens: 0, completionTokens: 0 };
  if (stored.length === 0) {
    const judge = config.judge!;
    const input = buildPoolingInput(prmVariant, { problem: solution.problemText, steps: solution.chunks.map((c) => c.text) });
    const result = await ctx.endpoints.get(judge).client.pool({ model: judge.model, ...input, signal: ctx.signal });
    ctx.recordUsage(result.usage);
    usage = result.usage;
    const read = readStepProbabilities(prmVariant, result.body, solution.chunks.length);
    const scores = "scores" in read ? read.scores : null;
    const verdicts: Verdict[] = scores ? stepVerdicts(scores, threshold) : solution.chunks.map(() => "unparseable");
    const data: Prisma.JudgeSampleCreateManyInput[] = solution.chunks.map((chunk, position) => ({
      runId,
      chunkId: chunk.id,
      sampleIndex: 0,
      promptTemplateId: `${judgeProtocolRef("discriminative-prm")}:${prmVariant}`,
      rationale: scores ? `P(correct step) = ${scores[position]!.toFixed(4)} (threshold ${threshold})` : `unreadable pooling response: ${"problem" in read ? read.problem : "no scores"}`,
      verdict: verdicts[position]!,
      score: scores ? scores[position]! : null,
      promptTokens: position === 0 ? result.usage.promptTokens : 0,
      completionTokens: 0,
    }));
    await db.judgeSample.createMany({ data, skipDuplicates: true });
    rows = data.map((r) => ({ chunkId: r.chunkId, verdict: r.verdict as Verdict, score: r.score ?? null }));
  }
  const { votes } = votesOfSamples(solution.chunks, rows, config.tiePolicy);
  return {
    solutionId: solution.solutionId,
    chunkCount: solution.chunks.length,
    votes,
    predictedFirstError: predictFirstError(votes),
    solution: { score: null, output: null, samples: null, promptTokens: usage.promptTokens, completionTokens: 0 },
  };
}

/** The SolutionPrediction columns of a solution's evidence (none for protocols whose evidence is the JudgeSamples). */
export function solutionEvidenceColumns(evidence: SolutionEvidence | null): Pick<Prisma.SolutionPredictionCreateManyInput, "score" | "output" | "samples" | "promptTokens" | "completionTokens"> {
  if (!evidence) return {};
  return { score: evidence.score, output: evidence.output, ...(evidence.samples === null ? {} : { samples: evidence.samples }), promptTokens: evidence.promptTokens, completionTokens: evidence.completionTokens };
}
