import type { Db } from "@stepwiser/db";
import { generationRequestBody, type GenerationRequest } from "@stepwiser/inference";
import type { UnitRunKinds } from "../runs/run-kind";
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

function batchLine(id: BatchRequestId, request: GenerationRequest): BatchRequestLine {
  const { path, body } = generationRequestBody(request, false);
  return { custom_id: formatBatchRequestId(id), method: "POST", url: `/v1${path}`, body };
}

/**
 * Every request the run may still need, as OpenAI batch lines, unit by unit in
 * plan order, streamed: the requests its kind's batch hooks name for each unit.
 * Plans the run first when it has no plan yet (as its first execution would), so
 * the file covers exactly the units the execution works. Samples already stored
 * are not requested again; each missing contiguous range of sample indices of a
 * position is one request with n and the seed of its first sample, so its body is
 * the body the online client would send.
 */
export async function* batchRequestLines(db: Db, runId: string, unitKinds: UnitRunKinds, options: BatchRequestOptions = {}): AsyncGenerator<BatchRequestLine> {
  const batch = await loadBatchRun(db, runId, unitKinds);
  await ensureRunPlanned(db, batch);
  for await (const segmentationId of unitsToWork(db, runId)) {
    const skip = (reason: string) => options.onSkippedUnit?.(segmentationId, reason);
    for await (const { position, first, count, request } of batch.batch.requests(db, runId, batch.config, segmentationId, skip)) {
      yield batchLine({ kind: batch.kind, runId, segmentationId, position, first, count }, request);
    }
  }
}
