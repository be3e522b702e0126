import {
  genPrmAnalyzeContinuation,
  genPrmCompletedText,
  genPrmContinuation,
  genPrmExecutionContinuation,
  genPrmFallbackContinuation,
  genPrmVerifyContinuation,
  genPrmYesProbability,
  GENPRM_CODE_FENCE_END,
  GENPRM_MAX_CODE_ROUNDS,
  GENPRM_NO_CODE_OUTPUT,
  GENPRM_SAMPLING,
  buildGenPrmMessages,
  judgeProtocolRef,
  lastPythonBlock,
  genPrmFirstError,
  genPrmStepScore,
  genPrmStepVerdict,
  parseGenPrmVerdict,
  type GenPrmContinuation,
  type Verdict,
} from "@stepwiser/core";
import type { ChatMessage, GenerationResult, InferenceClient } from "@stepwiser/inference";
import type { Prisma } from "@stepwiser/db";
import type { RunContext } from "../runs/run-kind";
import { runPythonSandboxed, type SandboxResult } from "../sandbox/python-sandbox";
import { isTruncated, judgeSeed } from "./judge-chunks";
import type { ProtocolOptions } from "./judge-run";
import type { ProtocolJudgeSettings, ProtocolJudgement, SegmentationForJudge } from "./protocol-judge";

/** One GenPRM judgement of one step: the full step output (`<analyze>` to `</output>`), its verdict and P(Yes). */
export interface GenPrmStepSample {
  output: string;
  verdict: Verdict;
  score: number | null;
  /** The last request of the sample hit the generation limit. */
  truncated: boolean;
  promptTokens: number;
  completionTokens: number;
}

export interface GenPrmStepRequest {
  client: InferenceClient;
  model: string;
  problem: string;
  steps: readonly string[];
  position: number;
  /** The judgements of the steps before `position`, as the conversation carries them. */
  previousOutputs: readonly string[];
  samples: number;
  seed: number;
  temperature: number;
  /** GenPRM sends 0.95 (its TOP_P); a run may set another. */
  topP?: number;
  maxTokens: number;
  options: ProtocolOptions;
  signal?: AbortSignal;
  recordUsage: RunContext<unknown>["recordUsage"];
}

/** What GenPRM's executor prints for a block's run: its output, or its error or time-out line. */
export function codeRunText(run: SandboxResult): string {
  if (run.status === "ok") return run.stdout.trim();
  if (run.status === "timeout") return `Code execute time out: the block ran past ${run.durationMs} ms`;
  if (run.status === "refused") return `Code execute Error: ${run.stderr.trim()}`;
  const lines = run.stderr.trim().split("\n");
  return `Code execute Error: ${lines[lines.length - 1] ?? `exit code ${run.exitCode}`}`;
}

/**
 * Judges one step GenPRM's way (genprm_inference.py): request A writes the analysis
 * up to `</analyze>`, request B the verification and the judgement up to `</output>`
 * with log-probabilities on its tokens. With code execution on, B pauses at the end
 * of each code block, the block runs in the sandbox and its output is appended, at
 * most three rounds, then the analysis-only fallback. Each sample is judged on its
 * own; the request A of all samples is one request with n.
 */
export async function judgeGenPrmStep(request: GenPrmStepRequest): Promise<GenPrmStepSample[]> {
  const { client, model, position, samples, seed } = request;
  const stepNumber = position + 1;
  const messages = buildGenPrmMessages({ problem: request.problem, steps: request.steps, position, previousOutputs: request.previousOutputs });
  const common = { model, temperature: request.temperature, topP: request.topP ?? GENPRM_SAMPLING.topP, extraBody: { top_k: GENPRM_SAMPLING.topK }, signal: request.signal, affinityKey: `genprm:${request.problem.length}:${position}` };
  const send = async (continuation: GenPrmContinuation, n: number, sampleSeed: number, logprobs: boolean): Promise<GenerationResult> => {
    const result = await client.generate({
      ...common,
      prompt: { kind: "chat", messages: genPrmContinuation(messages as ChatMessage[], continuation), continueFinalMessage: true },
      n,
      seed: sampleSeed,
      stop: continuation.stop,
      maxTokens: continuation.maxTokens ?? request.maxTokens,
      ...(logprobs ? { logprobs: true, topLogprobs: GENPRM_SAMPLING.topLogprobs } : {}),
    });
    request.recordUsage(result.usage);
    return result;
  };
  const analyses = await send(genPrmAnalyzeContinuation(stepNumber), samples, seed, false);
  const out: GenPrmStepSample[] = [];
  for (const [index, analysisSample] of analyses.samples.entries()) {
    let promptTokens = index === 0 ? analyses.usage.promptTokens : 0;
    let completionTokens = Math.round(analyses.usage.completionTokens / analyses.samples.length);
    const analysis = analysisSample.text;
    let continuation = genPrmVerifyContinuation(stepNumber, analysis, { execute: request.options.executeCode });
    let rounds = 0;
    for (;;) {
      const last = rounds >= GENPRM_MAX_CODE_ROUNDS;
      const current = last ? genPrmFallbackContinuation(stepNumber, analysis) : continuation;
      const result = await send(current, 1, seed + index, true);
      promptTokens += result.usage.promptTokens;
      completionTokens += result.usage.completionTokens;
      const sample = result.samples[0]!;
      const stoppedOn = typeof sample.stopReason === "string" ? sample.stopReason : null;
      if (!last && request.options.executeCode && stoppedOn === GENPRM_CODE_FENCE_END) {
        const generated = sample.text.endsWith(GENPRM_CODE_FENCE_END) ? sample.text : sample.text + GENPRM_CODE_FENCE_END;
        const code = lastPythonBlock(current.prefix + generated);
        const codeOutput = code === null ? GENPRM_NO_CODE_OUTPUT : codeRunText(await runPythonSandboxed(code, request.options.sandbox, { signal: request.signal }));
        continuation = genPrmExecutionContinuation(current, generated, codeOutput);
        rounds += 1;
        continue;
      }
      const output = genPrmCompletedText(current, sample.text, stoppedOn);
      const verdict = parseGenPrmVerdict(output);
      out.push({ output, verdict, score: genPrmYesProbability(sample.logprobs ?? [], verdict), truncated: isTruncated(sample), promptTokens, completionTokens });
      break;
    }
  }
  return out;
}

/**
 * GenPRM over a solution: the steps in order, each judged with the conversation of
 * the steps before it, whose assistant turns are the first sample's judgements (as
 * prm_evaluate.py keeps `outputs[0]`). Each step is read as GenPRM's ProcessBench
 * evaluator reads it: its score is the mean P(Yes) over its samples (0.5 for a sample
 * without a decision), Negative below 0.5; the predicted first error is the first
 * Negative. Stops there when the run says so (the later steps cannot change the
 * prediction). Stored samples are reused: a redone unit continues where the earlier
 * attempt stopped.
 */
export async function judgeGenPrmSolution(ctx: RunContext<ProtocolJudgeSettings>, solution: SegmentationForJudge): Promise<ProtocolJudgement> {
  const { db, config, runId } = ctx;
  const judge = config.judge!;
  const client = ctx.endpoints.get(judge).client;
  const steps = solution.chunks.map((c) => c.text);
  const stored = await db.judgeSample.findMany({
    where: { runId, chunkId: { in: solution.chunks.map((c) => c.id) } },
    orderBy: { sampleIndex: "asc" },
    select: { chunkId: true, sampleIndex: true, verdict: true, score: true, rationale: true },
  });
  const previousOutputs: string[] = [];
  const stepScores: number[] = [];
  for (let position = 0; position < steps.length; position++) {
    const chunk = solution.chunks[position]!;
    let own = stored.filter((s) => s.chunkId === chunk.id);
    if (own.length < config.samples) {
      const judged = await judgeGenPrmStep({
        client,
        model: judge.model,
        problem: solution.problemText,
        steps,
        position,
        previousOutputs,
        samples: config.samples,
        seed: judgeSeed(config.seed, solution.externalId, chunk.index),
        temperature: config.temperature,
        topP: config.topP,
        maxTokens: config.maxTokens,
        options: config.protocolOptions,
        signal: ctx.signal,
        recordUsage: (usage, requests) => ctx.recordUsage(usage, requests),
      });
      const data: Prisma.JudgeSampleCreateManyInput[] = judged.map((sample, sampleIndex) => ({
        runId,
        chunkId: chunk.id,
        sampleIndex,
        promptTemplateId: judgeProtocolRef("genprm"),
        rationale: sample.output,
        verdict: sample.verdict,
        score: sample.score,
        truncated: sample.truncated,
        promptTokens: sample.promptTokens,
        completionTokens: sample.completionTokens,
      }));
      // One step's samples are stored together, so a redone unit finds a step whole or not at all.
      await db.$transaction([db.judgeSample.deleteMany({ where: { runId, chunkId: chunk.id } }), db.judgeSample.createMany({ data })]);
      own = data.map((d) => ({ chunkId: chunk.id, sampleIndex: d.sampleIndex, verdict: d.verdict as Verdict, score: d.score ?? null, rationale: d.rationale }));
    }
    const score = genPrmStepScore(own.map((s) => s.score))!;
    stepScores.push(score);
    previousOutputs.push(own.find((s) => s.sampleIndex === 0)?.rationale ?? own[0]!.rationale);
    if (config.stopAtFirstNegative && genPrmStepVerdict(score) === "Negative") break;
  }
  return {
    solutionId: solution.solutionId,
    chunkCount: steps.length,
    votes: stepScores.map(genPrmStepVerdict),
    predictedFirstError: genPrmFirstError(stepScores),
    solution: null,
  };
}
