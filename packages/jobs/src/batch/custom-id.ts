/**
 * The `custom_id` of one batch request: which run, which unit (segmentation),
 * which position in it (annotate: the prefix length; judge: the chunk index)
 * and which sample indices it draws, e.g. `annotate:<runId>:<segmentationId>:3:0-15`.
 * The output of `vllm run-batch` carries only this id back, so everything the
 * import needs to store the samples must be in it.
 */
export interface BatchRequestId {
  kind: BatchRunKind;
  runId: string;
  segmentationId: string;
  /** annotate: prefix length (0 = the bare problem); judge: chunk index. */
  position: number;
  /** First sample index; the request has n = count and the seed of this sample. */
  first: number;
  count: number;
}

export const BATCH_RUN_KINDS = ["annotate", "judge"] as const;
export type BatchRunKind = (typeof BATCH_RUN_KINDS)[number];

export function formatBatchRequestId(id: BatchRequestId): string {
  return `${id.kind}:${id.runId}:${id.segmentationId}:${id.position}:${id.first}-${id.first + id.count - 1}`;
}

const PATTERN = /^(annotate|judge):([^:\s]+):([^:\s]+):(\d{1,9}):(\d{1,9})-(\d{1,9})$/;

/** The parsed id, or null when the text is not one this product wrote. */
export function parseBatchRequestId(text: string): BatchRequestId | null {
  const match = PATTERN.exec(text);
  if (!match) return null;
  const first = Number(match[5]);
  const last = Number(match[6]);
  if (last < first) return null;
  return { kind: match[1] as BatchRunKind, runId: match[2]!, segmentationId: match[3]!, position: Number(match[4]), first, count: last - first + 1 };
}
