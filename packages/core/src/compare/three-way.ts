import { ratingToLabel, type HumanRating } from "../annotation/human-label";
import type { Verdict } from "../judge/verdict";
import type { Label } from "../labels/label";
import { calibrationReport, type CalibrationReport } from "../stats/calibration";
import { confusionMatrix, type ConfusionMatrix, type LabeledPrediction } from "../stats/confusion";
import { cohensKappa } from "../stats/kappa";

/**
 * Chunk-level agreement of the three readings a chunk can have: the judge's
 * majority verdict, the Monte-Carlo label of an annotate run, and the final
 * human rating. Pairs are compared on the chunks that have both readings; a
 * human rating is binarised with `ratingToLabel` (neutral counts as Positive).
 */

export interface ThreeWayChunk {
  chunkId: string;
  solutionId: string;
  externalId: string;
  index: number;
  /** Majority verdict of the judge's samples; null when the judge never saw the chunk. */
  judge: Verdict | null;
  /** Share of the judge's parsed samples that said Positive; null when none parsed. */
  judgeShare: number | null;
  /** The annotate run's label under the chosen rule. */
  mc: Label | null;
  /** The final human rating (-1, 0, +1); null when unrated or disputed. */
  human: HumanRating | null;
}

/**
 * How the three readings of a non-unanimous chunk split:
 * - all_differ: three different readings — the human said neutral (0) while
 *   judge and MC disagree, or the judge's vote is unparseable while MC and the
 *   human disagree;
 * - human_alone, judge_alone, mc_alone: the other two agree and this one does not.
 */
export const THREE_WAY_PATTERNS = ["all_differ", "human_alone", "judge_alone", "mc_alone"] as const;
export type ThreeWayPattern = (typeof THREE_WAY_PATTERNS)[number];

export interface ReadingAgreement {
  /** `counts[reference][reading]`: the reference is MC for judge × MC, the human otherwise. */
  matrix: ConfusionMatrix;
  /** Cohen's κ over the chunks of the matrix (an unparseable judge vote is its own category); null when there are none. */
  kappa: number | null;
  /** Share of the chunks on which the two readings are the same. */
  observedAgreement: number | null;
}

export interface ThreeWayAgreement<C extends ThreeWayChunk = ThreeWayChunk> {
  judgeVsMc: ReadingAgreement;
  judgeVsHuman: ReadingAgreement;
  mcVsHuman: ReadingAgreement;
  /** Chunks with all three readings. */
  complete: number;
  unanimous: number;
  patterns: Record<ThreeWayPattern, number>;
  /** Every chunk with all three readings that are not unanimous, in input order. */
  disagreements: Array<C & { pattern: ThreeWayPattern }>;
}

/** Confusion matrix, Cohen's κ and observed agreement of one reading against a reference, on the chunks having both. */
export function readingAgreement(pairs: readonly LabeledPrediction[]): ReadingAgreement {
  if (pairs.length === 0) return { matrix: confusionMatrix([]), kappa: null, observedAgreement: null };
  const kappa = cohensKappa(
    pairs.map((p) => p.gold),
    pairs.map((p) => p.predicted),
  );
  return { matrix: confusionMatrix(pairs), kappa: kappa.kappa, observedAgreement: kappa.observedAgreement };
}

/**
 * `readingAgreement` from the confusion matrix alone, with the same integer
 * arithmetic as `cohensKappa` (the reference as the first rater): for pairs
 * counted in the database instead of listed one by one.
 */
export function readingAgreementFromMatrix(matrix: ConfusionMatrix): ReadingAgreement {
  const n = matrix.total;
  if (n === 0) return { matrix, kappa: null, observedAgreement: null };
  const { Positive, Negative } = matrix.counts;
  const agreements = Positive.Positive + Negative.Negative;
  // Σ over categories of (reference count) × (reading count); an unparseable reading has no reference counterpart.
  const chanceProducts =
    (Positive.Positive + Positive.Negative + Positive.unparseable) * (Positive.Positive + Negative.Positive) +
    (Negative.Positive + Negative.Negative + Negative.unparseable) * (Positive.Negative + Negative.Negative);
  const observedAgreement = agreements / n;
  const kappa = chanceProducts === n * n ? (observedAgreement === 1 ? 1 : 0) : (n * agreements - chanceProducts) / (n * n - chanceProducts);
  return { matrix, kappa, observedAgreement };
}

/**
 * Judge × Monte-Carlo agreement from chunks counted by reading (as the
 * database groups them): the same matrix and κ as `readingAgreement` over the
 * chunks having both readings, whatever their number.
 */
export function judgeMcAgreementOfGroups(groups: ReadonlyArray<{ judge: Verdict | null; mc: Label | null; chunks: number }>): ReadingAgreement {
  const matrix = confusionMatrix([]);
  for (const group of groups) {
    if (group.judge === null || group.mc === null) continue;
    matrix.counts[group.mc][group.judge] += group.chunks;
    matrix.total += group.chunks;
  }
  return readingAgreementFromMatrix(matrix);
}

/** The pattern of a chunk with all three readings, or null when they agree. */
export function threeWayPattern(judge: Verdict, mc: Label, human: HumanRating): ThreeWayPattern | null {
  const humanLabel = ratingToLabel(human);
  if (judge === mc && mc === humanLabel) return null;
  if (human === 0 && judge !== mc) return "all_differ";
  if (judge === "unparseable" && mc !== humanLabel) return "all_differ";
  if (judge === mc) return "human_alone";
  if (mc === humanLabel) return "judge_alone";
  return "mc_alone";
}

export function threeWayAgreement<C extends ThreeWayChunk>(chunks: readonly C[]): ThreeWayAgreement<C> {
  const judgeMc: LabeledPrediction[] = [];
  const judgeHuman: LabeledPrediction[] = [];
  const mcHuman: LabeledPrediction[] = [];
  const patterns = Object.fromEntries(THREE_WAY_PATTERNS.map((p) => [p, 0])) as Record<ThreeWayPattern, number>;
  const disagreements: Array<C & { pattern: ThreeWayPattern }> = [];
  let complete = 0;
  for (const chunk of chunks) {
    const human = chunk.human === null ? null : ratingToLabel(chunk.human);
    if (chunk.judge !== null && chunk.mc !== null) judgeMc.push({ gold: chunk.mc, predicted: chunk.judge });
    if (chunk.judge !== null && human !== null) judgeHuman.push({ gold: human, predicted: chunk.judge });
    if (chunk.mc !== null && human !== null) mcHuman.push({ gold: human, predicted: chunk.mc });
    if (chunk.judge === null || chunk.mc === null || chunk.human === null) continue;
    complete += 1;
    const pattern = threeWayPattern(chunk.judge, chunk.mc, chunk.human);
    if (pattern === null) continue;
    patterns[pattern] += 1;
    disagreements.push({ ...chunk, pattern });
  }
  return {
    judgeVsMc: readingAgreement(judgeMc),
    judgeVsHuman: readingAgreement(judgeHuman),
    mcVsHuman: readingAgreement(mcHuman),
    complete,
    unanimous: complete - disagreements.length,
    patterns,
    disagreements,
  };
}

export interface JudgeCalibrationItem {
  /** Share of the judge's parsed samples that said Positive. */
  judgeShare: number | null;
  /** The reference label (Monte-Carlo or binarised human). */
  reference: Label | null;
  /** Chunks this item stands for (default 1): readings grouped and counted in the database. */
  count?: number;
}

/**
 * Reliability of the judge's vote share as a probability that the reference
 * calls the chunk Positive; chunks lacking either value are left out (and counted).
 */
export function judgeCalibration(items: readonly JudgeCalibrationItem[], options: { bins?: number } = {}): CalibrationReport & { skipped: number } {
  const usable = items.filter((i): i is { judgeShare: number; reference: Label; count?: number } => i.judgeShare !== null && i.reference !== null);
  const report = calibrationReport(
    usable.map((i) => ({ probability: i.judgeShare, outcome: i.reference === "Positive", ...(i.count === undefined ? {} : { count: i.count }) })),
    options,
  );
  const chunks = (list: readonly JudgeCalibrationItem[]) => list.reduce((sum, i) => sum + (i.count ?? 1), 0);
  return { ...report, skipped: chunks(items) - chunks(usable) };
}
