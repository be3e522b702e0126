import type { Label, Verdict } from "@stepwiser/core";
import type { ChunkLabels, StoredValue } from "./labels";

/**
 * The inspector's data shaping, apart from its views: which segmentation and
 * annotate run are shown, and everything known about each chunk, as plain
 * rows. No React here; the views map rows to elements.
 */

export interface InspectedChunk {
  id: string;
  index: number;
  text: string;
  startOffset: number;
  endOffset: number;
}

export interface InspectedSegmentation {
  id: string;
  chunks: InspectedChunk[];
}

export interface InspectedAnnotateRun {
  runId: string;
  segmentationId: string;
  values: StoredValue[];
}

export interface InspectedJudgement {
  runId: string;
  judgeModel: string | null;
  /** The prompt template the run asked with (stepwiser-judge@v2, …), null where its protocol has none of ours. */
  promptTemplateId?: string | null;
  samples: Array<{ chunkId: string; sampleIndex: number; verdict: string; rationale: string; promptTemplateId?: string; truncated?: boolean }>;
}

export interface JudgeSampleView {
  sampleIndex: number;
  verdict: Verdict;
  rationale: string;
  /** Cut at the generation limit: shown as truncated, apart from a badly formatted answer. */
  truncated?: boolean;
}

export interface ChunkJudge {
  runId: string;
  /** The judge model, or the run id when the run names none. */
  name: string;
  /** What the judge was asked with: its samples' template (or protocol) id. */
  template: string | null;
  /** This judge's samples on this chunk, in sample order; empty when it did not judge the chunk. */
  samples: JudgeSampleView[];
}

export interface ChunkRowData extends InspectedChunk {
  /** The source labels this chunk as the first wrong one. */
  sourceFirstError: boolean;
  /** The chunk comes after the source's first error (shown dimmed). */
  afterSourceError: boolean;
  /** Q after this chunk (the prefix ending with it), null when the run stored none. */
  q: { value: number; rollouts: number; correct: number } | null;
  /** Labels recomputed under the current parameters, null without an annotate run. */
  labels: { absQ: Label | null; relRatio: Label | null; relEffective: Label | null } | null;
  /** Each label's confidence (the posterior probability that it is the rule's true label), null where it has none; null without an annotate run. */
  confidences: { absQ: number | null; relRatio: number | null; relEffective: number | null } | null;
  judges: ChunkJudge[];
  /** The prefix length whose rollouts the chunk's button opens, null without an annotate run. */
  rolloutsPrefixLength: number | null;
}

/** The segmentation and annotate run on screen: the chosen ones, else the first of each (annotate runs of that segmentation only). */
export function inspectorSelection<S extends InspectedSegmentation, A extends InspectedAnnotateRun>(
  data: { segmentations: S[]; annotateRuns: A[] } | undefined,
  chosen: { segmentationId: string | null; annotateRunId: string | null },
): { segmentation: S | undefined; annotateRuns: A[]; annotateRun: A | undefined } {
  const segmentation = data?.segmentations.find((s) => s.id === chosen.segmentationId) ?? data?.segmentations[0];
  const annotateRuns = (data?.annotateRuns ?? []).filter((a) => a.segmentationId === segmentation?.id);
  const annotateRun = annotateRuns.find((a) => a.runId === chosen.annotateRunId) ?? annotateRuns[0];
  return { segmentation, annotateRuns, annotateRun };
}

/** Q-values for the curve: Q₀ of the bare problem, then Q after each chunk (null where the run stored none). */
export function qCurveValues(chunks: readonly InspectedChunk[], values: readonly StoredValue[]): { q0: number | null; q: (number | null)[] } {
  const byPrefix = new Map(values.map((v) => [v.prefixLength, v.qValue]));
  return { q0: byPrefix.get(0) ?? null, q: chunks.map((c) => byPrefix.get(c.index + 1) ?? null) };
}

const asVerdict = (verdict: string): Verdict => (verdict === "Positive" || verdict === "Negative" ? verdict : "unparseable");

/**
 * One row per chunk, in the segmentation's order: its text and offsets, where
 * it stands against the source's first error (−1: none; null: unknown), its
 * Q-value, its labels under the current parameters, and every judge's samples
 * on it (judges in the order given, each listed even where it did not judge).
 */
export function inspectorChunkRows(input: {
  chunks: readonly InspectedChunk[];
  sourceFirstErrorIndex: number | null;
  annotateRun: { values: readonly StoredValue[] } | undefined;
  labels: ChunkLabels | null;
  judgements: readonly InspectedJudgement[];
}): ChunkRowData[] {
  const { sourceFirstErrorIndex: firstError, annotateRun, labels } = input;
  const values = new Map((annotateRun?.values ?? []).map((v) => [v.prefixLength, v]));
  const judges = input.judgements.map((j) => ({
    runId: j.runId,
    name: j.judgeModel ?? j.runId,
    template: j.promptTemplateId ?? j.samples[0]?.promptTemplateId ?? null,
    samples: [...j.samples].sort((a, b) => a.sampleIndex - b.sampleIndex),
  }));
  return input.chunks.map((chunk) => {
    const value = values.get(chunk.index + 1);
    return {
      id: chunk.id,
      index: chunk.index,
      text: chunk.text,
      startOffset: chunk.startOffset,
      endOffset: chunk.endOffset,
      sourceFirstError: firstError !== null && firstError === chunk.index,
      afterSourceError: firstError !== null && firstError >= 0 && chunk.index > firstError,
      q: value ? { value: value.qValue, rollouts: value.rolloutCount, correct: value.correctCount } : null,
      labels: labels
        ? { absQ: labels.absQ[chunk.index] ?? null, relRatio: labels.relRatio?.[chunk.index] ?? null, relEffective: labels.relEffective?.[chunk.index] ?? null }
        : null,
      confidences: labels
        ? {
            absQ: labels.confidence.absQ[chunk.index] ?? null,
            relRatio: labels.confidence.relRatio?.[chunk.index] ?? null,
            relEffective: labels.confidence.relEffective?.[chunk.index] ?? null,
          }
        : null,
      judges: judges.map((judge) => ({
        runId: judge.runId,
        name: judge.name,
        template: judge.template,
        samples: judge.samples.filter((s) => s.chunkId === chunk.id).map((s) => ({ sampleIndex: s.sampleIndex, verdict: asVerdict(s.verdict), rationale: s.rationale, truncated: s.truncated === true })),
      })),
      rolloutsPrefixLength: annotateRun ? chunk.index + 1 : null,
    };
  });
}

/** A label whose confidence is below this is drawn as unsure (dashed, with a "?"). */
export const UNSURE_BELOW = 0.8;

/**
 * A confidence as text: two decimals, more (up to six) where two would round
 * a value short of certainty to 1.00 (or a value above 0 to 0.00), so the
 * text never claims a certainty the posterior does not have.
 */
export function formatConfidence(confidence: number): string {
  for (let digits = 2; digits <= 6; digits++) {
    const text = confidence.toFixed(digits);
    const rounded = Number(text);
    if ((rounded < 1 || confidence >= 1) && (rounded > 0 || confidence <= 0)) return text;
  }
  return confidence < 0.5 ? "< 0.000001" : "> 0.999999";
}

export interface LabelChipView {
  /** Shown on the chip: the rule and + or −, and "?" when unsure. */
  text: string;
  /** The full reading, for the hover title and screen readers, e.g. "rel-ratio Positive · confidence 0.62". */
  description: string;
  /** Confidence below `UNSURE_BELOW`; a label without a confidence is not marked unsure. */
  unsure: boolean;
}

/** How one label chip reads. */
export function labelChipView(rule: string, label: Label, confidence: number | null): LabelChipView {
  const unsure = confidence !== null && confidence < UNSURE_BELOW;
  return {
    text: `${rule} ${label === "Positive" ? "+" : "−"}${unsure ? "?" : ""}`,
    description: `${rule} ${label} · ${confidence === null ? "no confidence" : `confidence ${formatConfidence(confidence)}`}`,
    unsure,
  };
}
