import type { Verdict } from "../judge/verdict";
import type { Label } from "../labels/label";
import { InputError } from "../errors/input-error";

/**
 * Binary judge evaluation against gold chunk labels.
 *
 * Conventions (shared by every scalar metric in `stats/`):
 * - A zero denominator yields 0, never NaN or null (scikit-learn's
 *   `zero_division=0`). Metrics must stay plain numbers so a bootstrap
 *   resample that happens to hold no Negative item still yields a value; read
 *   `support` / `predicted` to tell "undefined" from "really 0".
 * - An unparseable prediction is always wrong: it counts in `total` (so it
 *   lowers accuracy) and in the support of its gold class (so it lowers that
 *   class's recall), but it is no prediction of either class, so it never
 *   enters a precision denominator. A judge cannot raise its precision by
 *   emitting garbage on hard items: the miss still shows in recall and accuracy.
 */

/** The chunk label (one concept, one name: see labels/label.ts). */
export type BinaryLabel = Label;
/** A judge verdict as a prediction of the label. */
export type PredictedLabel = Verdict;

export const BINARY_LABELS: readonly BinaryLabel[] = ["Positive", "Negative"];
export const PREDICTED_LABELS: readonly PredictedLabel[] = ["Positive", "Negative", "unparseable"];

export interface LabeledPrediction {
  gold: BinaryLabel;
  predicted: PredictedLabel;
}

/** `counts[gold][predicted]`: e.g. `counts.Negative.Positive` = errors the judge called sound. */
export interface ConfusionMatrix {
  counts: Record<BinaryLabel, Record<PredictedLabel, number>>;
  total: number;
}

export interface ClassMetrics {
  /** correct predictions of the class / predictions of the class (0 when none). */
  precision: number;
  /** correct predictions of the class / gold items of the class, unparseable included (0 when none). */
  recall: number;
  /** Harmonic mean of precision and recall (0 when both are 0). */
  f1: number;
  /** Gold items of the class. */
  support: number;
  /** Items predicted as the class. */
  predicted: number;
}

export interface BinaryMetrics {
  /** (correct Positive + correct Negative) / total, unparseable counted wrong (0 when empty). */
  accuracy: number;
  /** The error class: the headline metrics for a stepwise judge. */
  negative: ClassMetrics;
  positive: ClassMetrics;
  unparseable: number;
  /** unparseable / total (0 when empty). */
  unparseableRate: number;
  total: number;
}

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? 0 : numerator / denominator);

function emptyRow(): Record<PredictedLabel, number> {
  return { Positive: 0, Negative: 0, unparseable: 0 };
}

/**
 * Counts gold × predicted. Labels are checked at run time because they often
 * come from stored JSON; the error names the offending item's index.
 */
export function confusionMatrix(items: Iterable<LabeledPrediction>): ConfusionMatrix {
  const counts: ConfusionMatrix["counts"] = { Positive: emptyRow(), Negative: emptyRow() };
  let total = 0;
  for (const { gold, predicted } of items) {
    if (!BINARY_LABELS.includes(gold)) {
      throw new InputError(`gold label must be "Positive" or "Negative", got ${JSON.stringify(gold)}`, {
        record: total,
        field: "gold",
      });
    }
    if (!PREDICTED_LABELS.includes(predicted)) {
      throw new InputError(`prediction must be "Positive", "Negative" or "unparseable", got ${JSON.stringify(predicted)}`, {
        record: total,
        field: "predicted",
      });
    }
    counts[gold][predicted] += 1;
    total += 1;
  }
  return { counts, total };
}

/** Per-class metrics treating `label` as the positive class of the usual definitions. */
export function classMetrics(matrix: ConfusionMatrix, label: BinaryLabel): ClassMetrics {
  const other: BinaryLabel = label === "Negative" ? "Positive" : "Negative";
  const truePositives = matrix.counts[label][label];
  const predicted = truePositives + matrix.counts[other][label];
  const row = matrix.counts[label];
  const support = row.Positive + row.Negative + row.unparseable;
  return {
    precision: ratio(truePositives, predicted),
    recall: ratio(truePositives, support),
    // 2·TP / (predicted + support) equals 2PR/(P+R) whenever that is defined,
    // and is 0 exactly when it is not, with one rounding instead of three.
    f1: ratio(2 * truePositives, predicted + support),
    support,
    predicted,
  };
}

export function binaryMetrics(matrix: ConfusionMatrix): BinaryMetrics {
  const { counts, total } = matrix;
  const unparseable = counts.Positive.unparseable + counts.Negative.unparseable;
  return {
    accuracy: ratio(counts.Positive.Positive + counts.Negative.Negative, total),
    negative: classMetrics(matrix, "Negative"),
    positive: classMetrics(matrix, "Positive"),
    unparseable,
    unparseableRate: ratio(unparseable, total),
    total,
  };
}

/** F1 of the Negative (error) class straight from items: a ready-made bootstrap statistic. */
export function negativeF1(items: Iterable<LabeledPrediction>): number {
  return classMetrics(confusionMatrix(items), "Negative").f1;
}
