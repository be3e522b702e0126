import type { Label } from "./label";
import { labelConfidences, type LabelConfidenceOptions, type PrefixEvidence } from "./confidence";
import type { LabelRule } from "./rules";
import { labelsFromStoredValues, storedPrefixEvidence, storedSolutionValues, type StoredSolutionValues } from "./stored-values";

/** One prefix's stored estimate and counts (a `ChunkValue` row). */
export interface StoredValueRow {
  prefixLength: number;
  qValue: number;
  rolloutCount: number;
  correctCount: number;
}

/** What a run stored for one solution: the values the rules read, and each prefix's evidence for confidence. */
export interface StoredSolution {
  values: StoredSolutionValues;
  evidence: (PrefixEvidence | null)[];
}

/** One solution's labels under one rule, and each label's confidence; null where the stored values do not determine them. */
export interface Labelling {
  rule: LabelRule;
  labels: Label[] | null;
  confidences: (number | null)[] | null;
}

/** A solution's stored values and evidence from its `ChunkValue` rows. */
export function storedSolution(rows: readonly StoredValueRow[], chunkCount: number): StoredSolution {
  return { values: storedSolutionValues(rows, chunkCount), evidence: storedPrefixEvidence(rows, chunkCount) };
}

/**
 * The one derivation of a solution's labels and their confidences under each
 * rule, from its stored values and counts: what the worker stores, and what the
 * inspector shows when its parameters differ from the run's own. With
 * `unreadableCounts: "null"` counts the confidence model refuses (a bad row)
 * give null confidences instead of throwing, so a page still shows the labels.
 */
export function labellingsOf(
  { values, evidence }: StoredSolution,
  rules: readonly LabelRule[],
  options: LabelConfidenceOptions,
  settings: { unreadableCounts?: "throw" | "null" } = {},
): Labelling[] {
  return rules.map((rule) => {
    const labels = labelsFromStoredValues(rule, values);
    if (!labels) return { rule, labels, confidences: null };
    try {
      return { rule, labels, confidences: labelConfidences(rule, labels, evidence, options) };
    } catch (error) {
      if (settings.unreadableCounts === "null" && error instanceof RangeError) return { rule, labels, confidences: labels.map(() => null) };
      throw error;
    }
  });
}
