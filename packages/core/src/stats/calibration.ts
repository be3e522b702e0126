import { InputError } from "../errors/input-error";

/**
 * Calibration of predicted probabilities against binary outcomes, e.g. a
 * judge's share of "Positive" votes vs whether the chunk is gold Positive.
 *
 * Bins are equal-width over [0, 1]: bin b covers [b/B, (b+1)/B), the last one
 * also takes 1. A probability on an inner edge goes to the upper bin.
 * ECE = Σ_b (n_b / N) · |mean predicted_b − observed rate_b|; it is 0 for no
 * items (the zero-denominator convention of `confusion.ts`). Empty bins carry
 * null means instead: they have weight 0 in the ECE, and a reliability diagram
 * must skip them rather than draw a point at 0.
 */

export interface CalibrationItem {
  /** Predicted probability of the outcome, in [0, 1]. */
  probability: number;
  /** Whether the outcome happened (1/0 accepted for data exported from Python). */
  outcome: boolean | 0 | 1;
  /** Items with this probability and outcome that this one stands for (a positive integer, default 1). */
  count?: number;
}

export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  /** Mean predicted probability in the bin; null when empty. */
  meanPredicted: number | null;
  /** Share of items in the bin whose outcome happened; null when empty. */
  observedRate: number | null;
}

export interface CalibrationReport {
  bins: ReliabilityBin[];
  expectedCalibrationError: number;
  total: number;
}

export const DEFAULT_CALIBRATION_BINS = 10;

export function calibrationReport(items: readonly CalibrationItem[], options: { bins?: number } = {}): CalibrationReport {
  const binCount = options.bins ?? DEFAULT_CALIBRATION_BINS;
  if (!Number.isInteger(binCount) || binCount < 1) throw new RangeError(`bins must be a positive integer, got ${binCount}`);
  const count = new Array<number>(binCount).fill(0);
  const predictedSum = new Array<number>(binCount).fill(0);
  const outcomeSum = new Array<number>(binCount).fill(0);
  let total = 0;
  items.forEach(({ probability, outcome, count: weight = 1 }, i) => {
    if (!(probability >= 0 && probability <= 1)) {
      throw new InputError(`probability must be in [0, 1], got ${probability}`, { record: i, field: "probability" });
    }
    if (outcome !== true && outcome !== false && outcome !== 0 && outcome !== 1) {
      throw new InputError(`outcome must be a boolean, 0 or 1, got ${JSON.stringify(outcome)}`, { record: i, field: "outcome" });
    }
    if (!(Number.isInteger(weight) && weight >= 1)) {
      throw new InputError(`count must be a positive integer, got ${weight}`, { record: i, field: "count" });
    }
    const b = Math.min(Math.floor(probability * binCount), binCount - 1);
    count[b]! += weight;
    predictedSum[b]! += weight === 1 ? probability : probability * weight;
    outcomeSum[b]! += outcome === true || outcome === 1 ? weight : 0;
    total += weight;
  });
  let ece = 0;
  const bins = count.map((n, b): ReliabilityBin => {
    const lower = b / binCount;
    const upper = (b + 1) / binCount;
    if (n === 0) return { lower, upper, count: 0, meanPredicted: null, observedRate: null };
    const meanPredicted = predictedSum[b]! / n;
    const observedRate = outcomeSum[b]! / n;
    ece += (n / total) * Math.abs(meanPredicted - observedRate);
    return { lower, upper, count: n, meanPredicted, observedRate };
  });
  return { bins, expectedCalibrationError: ece, total };
}

/** The ECE alone, for use as a bootstrap statistic. */
export function expectedCalibrationError(items: readonly CalibrationItem[], options: { bins?: number } = {}): number {
  return calibrationReport(items, options).expectedCalibrationError;
}

/** Per-bin reliability diagram data. */
export function reliabilityBins(items: readonly CalibrationItem[], options: { bins?: number } = {}): ReliabilityBin[] {
  return calibrationReport(items, options).bins;
}
