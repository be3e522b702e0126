import type { Db } from "@stepwiser/db";
import { generationRequestBody, type GenerationRequest } from "@stepwiser/inference";
import { samplingEvidence, type AnnotateConfig } from "../pipelines/annotate/config";
import { loadSolutionForAnnotation } from "../pipelines/annotate/handler";
import { contiguousRanges, rolloutRequest } from "../pipelines/annotate/rollouts";
import type { JudgeConfig } from "../pipelines/judge/handler";
import { judgeRequest, type JudgedChunkContext } from "../pipelines/judge/judge-chunks";
import { ensureRunPlanned, loadBatchRun, unitsToWork } from "./batch-run";
import { formatBatchRequestId, type BatchRequestId } from "./custom-id";

/** One line of an OpenAI batch input file, as `vllm run-batch -i` reads it. */
export interface BatchRequestLine {
  custom_id: string;
  method: "POST";
  url: string;
  body: Record<string, unknown>;
}

export interface BatchRequestOptions {
  /** A unit that cannot be annotated (no reference answer, no chunks) fails online too; it is left out and named here. */
  onSkippedUnit?(key: string, reason: string): void;
}

const indices = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

function batchLine(id: BatchRequestId, request: GenerationRequest): BatchRequestLine {
  const { path, body } = generationRequestBody(request, false);
  return { custom_id: formatBatchRequestId(id), method: "POST", url: `/v1${path}`, body };
}

/**
 * Every request the run may still need, as OpenAI batch lines, unit by unit in
 * plan order, streamed. Plans the run first when it has no plan yet (as its first
 * execution would), so the file covers exactly the units the execution works.
 * Samples already stored are not requested again; each missing contiguous range
 * of sample indices of a prefix (chunk) is one request with n and the seed of its
 * first sample, so its body is the body the online client would send.
 */
export async function* batchRequestLines(db: Db, runId: string, options: BatchRequestOptions = {}): AsyncGenerator<BatchRequestLine> {
  const batch = await loadBatchRun(db, runId);
  await ensureRunPlanned(db, batch);
  for await (const segmentationId of unitsToWork(db, runId)) {
    if (batch.kind === "annotate") yield* annotateUnitLines(db, runId, batch.config, segmentationId, options);
    else yield* judgeUnitLines(db, runId, batch.config, segmentationId);
  }
}

/**
 * `fixed` needs M rollouts from every prefix 0..k-1. The cheaper strategies
 * decide online which prefixes and how many of the M seeds they look at; offline
 * there is no second round, so every prefix they may probe (1..k-1) is requested
 * with all M seeds: always for early-stop with own-prefix evidence (it samples
 * every prefix), and none when the solution's own answer is right for
 * first-error and for early-stop with later-prefixes evidence (they then sample
 * nothing). `adaptive` gets every prefix's first batch; its later rounds
 * depend on those answers and are requested online when the run executes.
 * Sample i of seed s equals a request with seed s + i, so the strategy reads
 * the same samples it would have drawn.
 */
async function* annotateUnitLines(db: Db, runId: string, config: AnnotateConfig, segmentationId: string, options: BatchRequestOptions): AsyncGenerator<BatchRequestLine> {
  let loaded: Awaited<ReturnType<typeof loadSolutionForAnnotation>>;
  try {
    loaded = await loadSolutionForAnnotation(db, segmentationId);
  } catch (error) {
    options.onSkippedUnit?.(segmentationId, error instanceof Error ? error.message : String(error));
    return;
  }
  const { solution, finalCorrect } = loaded;
  const k = solution.chunks.length;
  const samplesEveryPrefix = config.strategy === "early-stop" && samplingEvidence(config) === "own-prefix";
  const everyPrefix = config.strategy === "fixed" || config.strategy === "adaptive";
  const prefixes = everyPrefix ? indices(0, k) : finalCorrect && !samplesEveryPrefix ? [] : indices(1, k);
  // adaptive: the file holds every prefix's first batch; the rounds after it depend on the answers and are requested online when the run executes.
  const samples = config.strategy === "adaptive" ? Math.min(config.adaptiveBatch, config.maxRollouts) : config.rollouts;
  if (prefixes.length === 0) return;
  const stored = await db.rollout.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, sampleIndex: true } });
  const have = new Set(stored.map((r) => `${r.prefixLength}:${r.sampleIndex}`));
  for (const prefixLength of prefixes) {
    const missing = indices(0, samples).filter((i) => !have.has(`${prefixLength}:${i}`));
    for (const range of contiguousRanges(missing)) {
      const id: BatchRequestId = { kind: "annotate", runId, segmentationId, position: prefixLength, first: range[0]!, count: range.length };
      yield batchLine(id, rolloutRequest(config, solution, prefixLength, id.first, id.count));
    }
  }
}

/** K samples of every chunk; with `stopAtFirstNegative` the chunks after the first Negative vote are requested too (offline cannot stop early). */
async function* judgeUnitLines(db: Db, runId: string, config: JudgeConfig, segmentationId: string): AsyncGenerator<BatchRequestLine> {
  const segmentation = await db.segmentation.findUniqueOrThrow({
    where: { id: segmentationId },
    select: {
      chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } },
      trajectory: { select: { externalId: true, problem: { select: { text: true } } } },
    },
  });
  const { chunks, trajectory } = segmentation;
  const context: JudgedChunkContext = { segmentationId, externalId: trajectory.externalId, problemText: trajectory.problem.text, chunks };
  const stored = await db.judgeSample.findMany({ where: { runId, chunkId: { in: chunks.map((c) => c.id) } }, select: { chunkId: true, sampleIndex: true } });
  const have = new Set(stored.map((s) => `${s.chunkId}:${s.sampleIndex}`));
  for (let position = 0; position < chunks.length; position++) {
    const chunk = chunks[position]!;
    const missing = indices(0, config.samples).filter((i) => !have.has(`${chunk.id}:${i}`));
    for (const range of contiguousRanges(missing)) {
      const id: BatchRequestId = { kind: "judge", runId, segmentationId, position: chunk.index, first: range[0]!, count: range.length };
      yield batchLine(id, judgeRequest(config, context, position, id.first, id.count));
    }
  }
}
