import type { ChatMessage, Label } from "@stepwiser/core";
import type { LabelledChunk } from "./labelled-chunks";
import type { SplitName } from "./split";

/** Where a training row comes from; the same keys in every format. */
export interface TrainingExtraInfo {
  split: SplitName;
  /** Position of the row in its split's file. */
  index: number;
  chunk_id: string;
  chunk_index: number;
  solution_id: string;
  external_id: string;
  segmentation_id: string;
  problem_id: string;
  dataset_id: string;
  run_id: string;
  /** Label rule name, e.g. "rel-ratio". */
  rule: string;
  /** Canonical JSON of the rule's parameters, e.g. {"gamma":0.7}. */
  params: string;
  /** The label's confidence (posterior probability that the rule on the true Q-values gives it); null where none is stored. */
  confidence: number | null;
}

export interface TrainingRow {
  prompt: ChatMessage[];
  label: Label;
  extra_info: TrainingExtraInfo;
}

export interface RowContext {
  split: SplitName;
  runId: string;
  rule: string;
  params: string;
}

export function trainingRow(item: LabelledChunk, index: number, context: RowContext): TrainingRow {
  return {
    prompt: item.messages(),
    label: item.label,
    extra_info: {
      split: context.split,
      index,
      chunk_id: item.chunkId,
      chunk_index: item.chunkIndex,
      solution_id: item.solutionId,
      external_id: item.externalId,
      segmentation_id: item.segmentationId,
      problem_id: item.problemId,
      dataset_id: item.datasetId,
      run_id: context.runId,
      rule: context.rule,
      params: context.params,
      confidence: item.confidence,
    },
  };
}

/** Column and key descriptions, written into the manifest and mirrored in docs/EXPORTS.md. */
export const EXTRA_INFO_FIELDS: Record<keyof TrainingExtraInfo, string> = {
  split: '"train" or "test"',
  index: "position of the row in its file (0-based)",
  chunk_id: "Chunk id in StepWiser Studio",
  chunk_index: "0-based index of the judged chunk in its solution",
  solution_id: "Solution id",
  external_id: "the solution's id in its source file",
  segmentation_id: "Segmentation id (the chunking the prompt was built from)",
  problem_id: "Problem id; a problem's rows are all in one split",
  dataset_id: "Dataset id",
  run_id: "the run whose labels were exported",
  rule: 'label rule name: "abs-q", "rel-ratio" or "rel-effective"',
  params: 'canonical JSON of the rule\'s parameters, e.g. {"gamma":0.7}',
  confidence: "the label's confidence: posterior probability that the rule on the true Q-values gives this label; null where none is stored (imported labels)",
};

/** The parts of an export file as one byte array, in order. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
