import type { FirstErrorPrediction, ProcessBenchGold } from "../processbench/metrics";
import { goldSubset, type CheckpointPredictions } from "./checkpoints";

/** Which side of a disagreement found the gold first error (both right is no disagreement). */
export const DISAGREEMENT_KINDS = ["a_right", "b_right", "both_wrong"] as const;
export type DisagreementKind = (typeof DISAGREEMENT_KINDS)[number];

export interface PredictionDisagreement {
  id: string;
  subset: string;
  /** Gold first-error index; -1 = no error. */
  gold: number;
  /** null = no usable prediction (unparseable or none stored). */
  a: FirstErrorPrediction;
  b: FirstErrorPrediction;
  kind: DisagreementKind;
}

/**
 * Gold items on which two runs predict different first errors, in gold order.
 * A missing prediction and an unparseable one are the same thing here, "no
 * usable prediction" (null): both score as wrong, so they never disagree.
 */
export function predictionDisagreements(gold: readonly ProcessBenchGold[], a: CheckpointPredictions, b: CheckpointPredictions): PredictionDisagreement[] {
  const out: PredictionDisagreement[] = [];
  for (const item of gold) {
    const left = a.get(item.id) ?? null;
    const right = b.get(item.id) ?? null;
    if (left === right) continue;
    const kind: DisagreementKind = left === item.label ? "a_right" : right === item.label ? "b_right" : "both_wrong";
    out.push({ id: item.id, subset: goldSubset(item), gold: item.label, a: left, b: right, kind });
  }
  return out;
}
