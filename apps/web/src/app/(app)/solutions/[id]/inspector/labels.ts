import {
  DEFAULT_LABEL_CONFIDENCE_OPTIONS,
  DEFAULT_LABEL_RULES,
  labellingsOf,
  storedLabelRule,
  storedSolution,
  type Label,
  type LabelConfidenceOptions,
  type LabelRule,
  type StoredSolution,
} from "@stepwiser/core";
import type { LabelParams } from "./use-label-params";

export interface StoredValue {
  prefixLength: number;
  qValue: number;
  rolloutCount: number;
  correctCount: number;
}

/** A label the annotate run stored, with its confidence (null where the run's counts did not determine it). */
export interface StoredLabel {
  chunkId: string;
  rule: string;
  paramsKey: string;
  label: string;
  confidence: number | null;
}

export interface ChunkLabels {
  absQ: Label[];
  relRatio: Label[] | null;
  relEffective: Label[] | null;
  /** Each label's confidence, entry for entry; null where it has none (a prefix without rollouts). */
  confidence: {
    absQ: (number | null)[];
    relRatio: (number | null)[] | null;
    relEffective: (number | null)[] | null;
  };
}

/** What the confidences are read from besides the counts: the run's stored labels (by chunk id, in chunk order) and its confidence options. */
export interface ConfidenceSources {
  chunkIds: readonly string[];
  stored: readonly StoredLabel[];
  options: LabelConfidenceOptions;
}

/**
 * One rule's labels and confidences: core's derivation (`labellingsOf`, what the
 * worker stores) from the stored values; and where the run stored a label under
 * these very parameters (the run's own), that stored label and its confidence.
 */
function labelled(rule: LabelRule, solution: StoredSolution, sources: ConfidenceSources | undefined) {
  const [derived] = labellingsOf(solution, [rule], sources?.options ?? DEFAULT_LABEL_CONFIDENCE_OPTIONS, { unreadableCounts: "null" });
  const { labels, confidences } = derived!;
  if (!labels || !sources) return { labels, confidence: confidences };
  const key = storedLabelRule(rule);
  const stored = new Map(sources.stored.filter((l) => l.rule === key.rule && l.paramsKey === key.paramsKey).map((l) => [l.chunkId, l]));
  const own = labels.map((label, i) => stored.get(sources.chunkIds[i] ?? ""));
  return {
    labels: labels.map((label, i) => (own[i] ? (own[i].label as Label) : label)),
    confidence: labels.map((_, i) => (own[i] ? own[i].confidence : (confidences?.[i] ?? null))),
  };
}

/**
 * A solution's labels under the inspector's parameters: the run's stored labels
 * and confidences where the parameters are the run's own, else derived in the
 * browser by the worker's own core function (`labellingsOf`) from the stored
 * values and counts with the run's confidence options, so a slider or the
 * evidence switch shows its effect at once.
 */
export function labelsFromValues(values: readonly StoredValue[], chunkCount: number, params: LabelParams, sources?: ConfidenceSources): ChunkLabels {
  const solution = storedSolution(values, chunkCount);
  const absQ = labelled({ ...DEFAULT_LABEL_RULES["abs-q"], evidence: params.evidence }, solution, sources);
  const relRatio = labelled({ ...DEFAULT_LABEL_RULES["rel-ratio"], gamma: params.gamma }, solution, sources);
  const relEffective = labelled({ ...DEFAULT_LABEL_RULES["rel-effective"], alpha: params.alpha, n: params.n }, solution, sources);
  return {
    absQ: absQ.labels ?? [],
    relRatio: relRatio.labels,
    relEffective: relEffective.labels,
    confidence: { absQ: absQ.confidence ?? [], relRatio: relRatio.confidence, relEffective: relEffective.confidence },
  };
}
