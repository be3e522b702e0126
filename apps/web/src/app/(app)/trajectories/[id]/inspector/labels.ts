import {
  DEFAULT_LABEL_CONFIDENCE_OPTIONS,
  DEFAULT_LABEL_RULES,
  labelConfidences,
  labelsFromStoredValues,
  storedLabelRule,
  storedPrefixEvidence,
  storedSolutionValues,
  type Label,
  type LabelConfidenceOptions,
  type LabelRule,
  type PrefixEvidence,
  type StoredSolutionValues,
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

/** Core's confidences from the counts; none (nulls) for counts core refuses, so a bad row cannot take the page down. */
function liveConfidences(rule: LabelRule, labels: readonly Label[], evidence: readonly (PrefixEvidence | null)[], options: LabelConfidenceOptions): (number | null)[] {
  try {
    return labelConfidences(rule, labels, evidence, options);
  } catch (error) {
    if (error instanceof RangeError) return labels.map(() => null);
    throw error;
  }
}

function labelled(rule: LabelRule, values: StoredSolutionValues, evidence: readonly (PrefixEvidence | null)[], sources: ConfidenceSources | undefined) {
  const labels = labelsFromStoredValues(rule, values);
  if (!labels) return { labels: null, confidence: null };
  const live = liveConfidences(rule, labels, evidence, sources?.options ?? DEFAULT_LABEL_CONFIDENCE_OPTIONS);
  if (!sources) return { labels, confidence: live };
  // Where the run stored this very label under these parameters, its stored confidence is the one shown.
  const key = storedLabelRule(rule);
  const stored = new Map(sources.stored.filter((l) => l.rule === key.rule && l.paramsKey === key.paramsKey).map((l) => [l.chunkId, l]));
  const confidence = labels.map((label, i) => {
    const row = stored.get(sources.chunkIds[i] ?? "");
    return row && row.label === label ? row.confidence : (live[i] ?? null);
  });
  return { labels, confidence };
}

/**
 * The labels the annotate run stores, recomputed in the browser from its
 * stored values by the same core function (`labelsFromStoredValues`), so a
 * slider or the evidence switch shows its effect at once; and each label's
 * confidence: the stored one where the run stored that label under the same
 * parameters, else core's `labelConfidences` from the rollout counts with the
 * run's confidence options.
 */
export function labelsFromValues(values: readonly StoredValue[], chunkCount: number, params: LabelParams, sources?: ConfidenceSources): ChunkLabels {
  const stored = storedSolutionValues(values, chunkCount);
  const evidence = storedPrefixEvidence(values, chunkCount);
  const absQ = labelled({ ...DEFAULT_LABEL_RULES["abs-q"], evidence: params.evidence }, stored, evidence, sources);
  const relRatio = labelled({ ...DEFAULT_LABEL_RULES["rel-ratio"], gamma: params.gamma }, stored, evidence, sources);
  const relEffective = labelled({ ...DEFAULT_LABEL_RULES["rel-effective"], alpha: params.alpha, n: params.n }, stored, evidence, sources);
  return {
    absQ: absQ.labels ?? [],
    relRatio: relRatio.labels,
    relEffective: relEffective.labels,
    confidence: { absQ: absQ.confidence ?? [], relRatio: relRatio.confidence, relEffective: relEffective.confidence },
  };
}
