import { DEFAULT_LABEL_RULES, labelsFromStoredValues, storedSolutionValues, type Label } from "@stepwiser/core";
import type { LabelParams } from "./use-label-params";

export interface StoredValue {
  prefixLength: number;
  qValue: number;
  rolloutCount: number;
  correctCount: number;
}

export interface ChunkLabels {
  absQ: Label[];
  relRatio: Label[] | null;
  relEffective: Label[] | null;
}

/**
 * The labels the annotate run stores, recomputed in the browser from its
 * stored values by the same core function (`labelsFromStoredValues`), so a
 * slider or the evidence switch shows its effect at once.
 */
export function labelsFromValues(values: readonly StoredValue[], chunkCount: number, params: LabelParams): ChunkLabels {
  const stored = storedSolutionValues(values, chunkCount);
  return {
    absQ: labelsFromStoredValues({ ...DEFAULT_LABEL_RULES["abs-q"], evidence: params.evidence }, stored) ?? [],
    relRatio: labelsFromStoredValues({ ...DEFAULT_LABEL_RULES["rel-ratio"], gamma: params.gamma }, stored),
    relEffective: labelsFromStoredValues({ ...DEFAULT_LABEL_RULES["rel-effective"], alpha: params.alpha, n: params.n }, stored),
  };
}
