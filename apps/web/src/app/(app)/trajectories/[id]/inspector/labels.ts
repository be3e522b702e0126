import { absQLabelsFromWitnesses, relEffectiveLabels, relRatioLabels, type Label } from "@stepwiser/core";
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
 * The same rules the annotate run applies (packages/core), recomputed in the
 * browser from the stored values so a slider shows its effect at once.
 */
export function labelsFromValues(values: readonly StoredValue[], chunkCount: number, params: LabelParams): ChunkLabels {
  const byLength = new Map(values.map((v) => [v.prefixLength, v]));
  const success = Array.from({ length: chunkCount }, (_, i) => (byLength.get(i + 1)?.correctCount ?? 0) > 0);
  const q = Array.from({ length: chunkCount }, (_, i) => byLength.get(i + 1)?.qValue ?? null);
  const q0 = byLength.get(0)?.qValue ?? null;
  const complete = q0 !== null && q.every((v) => v !== null);
  return {
    absQ: absQLabelsFromWitnesses(success),
    relRatio: complete ? relRatioLabels(q0, q as number[], { gamma: params.gamma }) : null,
    relEffective: complete ? relEffectiveLabels(q0, q as number[], { alpha: params.alpha, n: params.n }) : null,
  };
}
