import { averageCoverage, type AverageCoverage } from "./average";
import { subsetFromId } from "./record";

/** One ProcessBench sample as scoring sees it: its id and gold first-error index (-1 = no error). */
export interface ProcessBenchGold {
  id: string;
  label: number;
  /** Defaults to the id's prefix ("gsm8k-12" → "gsm8k"). */
  subset?: string;
}

/** A predicted first-error index; null = unparseable (scored as wrong). */
export type FirstErrorPrediction = number | null;

export interface SubsetScore {
  n: number;
  n_error: number;
  n_correct: number;
  /** Share of erroneous samples whose first error was located exactly. */
  acc_err: number;
  /** Share of error-free samples predicted -1. */
  acc_cor: number;
  /** Harmonic mean of acc_err and acc_cor; 0 when both are 0. */
  f1: number;
}

export interface ProcessBenchScore extends AverageCoverage {
  subsets: Record<string, SubsetScore>;
  /**
   * Unweighted mean of the F1s of the subsets present (`subsets_in_average`).
   * ProcessBench reports it over its four subsets; over fewer, or over another
   * subset, it is a partial average (`average_is_partial`), labelled so wherever shown.
   */
  average_f1: number;
  /** Gold ids without a prediction; each was scored as wrong. */
  missing: string[];
  /** Predicted ids that are not in the gold data (ignored). */
  unknown: string[];
  /** Predictions that were null (unparseable); scored as wrong. */
  unparseable: number;
}

export function f1FromAccuracies(accErr: number, accCor: number): number {
  return accErr + accCor === 0 ? 0 : (2 * accErr * accCor) / (accErr + accCor);
}

/**
 * ProcessBench scoring (spec §4): a sample matches when the predicted index equals
 * the label. An empty class (no erroneous or no error-free sample in a subset)
 * has accuracy 0 — the subset cannot show that ability.
 */
export function scoreProcessBench(
  gold: readonly ProcessBenchGold[],
  predictions: ReadonlyMap<string, FirstErrorPrediction>,
): ProcessBenchScore {
  const tallies = new Map<string, { n: number; nError: number; nCorrect: number; hitsError: number; hitsCorrect: number }>();
  const missing: string[] = [];
  const seen = new Set<string>();
  let unparseable = 0;
  for (const sample of gold) {
    if (seen.has(sample.id)) throw new Error(`gold id ${sample.id} appears twice`);
    seen.add(sample.id);
    const subset = sample.subset ?? subsetFromId(sample.id);
    const tally = tallies.get(subset) ?? { n: 0, nError: 0, nCorrect: 0, hitsError: 0, hitsCorrect: 0 };
    tallies.set(subset, tally);
    const predicted = predictions.has(sample.id) ? predictions.get(sample.id)! : undefined;
    if (predicted === undefined) missing.push(sample.id);
    else if (predicted === null) unparseable += 1;
    const hit = predicted !== undefined && predicted !== null && predicted === sample.label;
    tally.n += 1;
    if (sample.label === -1) {
      tally.nCorrect += 1;
      if (hit) tally.hitsCorrect += 1;
    } else {
      tally.nError += 1;
      if (hit) tally.hitsError += 1;
    }
  }
  const subsets: Record<string, SubsetScore> = {};
  for (const [name, t] of [...tallies].sort(([a], [b]) => a.localeCompare(b))) {
    const accErr = t.nError ? t.hitsError / t.nError : 0;
    const accCor = t.nCorrect ? t.hitsCorrect / t.nCorrect : 0;
    subsets[name] = { n: t.n, n_error: t.nError, n_correct: t.nCorrect, acc_err: accErr, acc_cor: accCor, f1: f1FromAccuracies(accErr, accCor) };
  }
  const f1s = Object.values(subsets).map((s) => s.f1);
  const average = f1s.length ? f1s.reduce((sum, f) => sum + f, 0) / f1s.length : 0;
  const unknown = [...predictions.keys()].filter((id) => !seen.has(id));
  return { subsets, average_f1: average, ...averageCoverage(Object.keys(subsets)), missing, unknown, unparseable };
}

/**
 * One gold solution with one system's prediction (undefined = none stored):
 * the unit a ProcessBench bootstrap resamples. A resample repeats solutions, so
 * it is scored from these pairs rather than from an id-keyed map.
 */
export interface PredictedSolution {
  label: number;
  prediction: FirstErrorPrediction | undefined;
}

export type SubsetAccuracies = Pick<SubsetScore, "n" | "n_error" | "n_correct" | "acc_err" | "acc_cor" | "f1">;

/**
 * The ProcessBench score of one subset's solutions, with the same arithmetic as
 * `scoreProcessBench` (so bit-for-bit the same numbers): the bootstrap statistic
 * of benchmark run summaries and checkpoint comparisons alike.
 */
export function scorePredictedSolutions(items: readonly PredictedSolution[]): SubsetAccuracies {
  let nError = 0;
  let nCorrect = 0;
  let hitsError = 0;
  let hitsCorrect = 0;
  for (const { label, prediction } of items) {
    const hit = prediction !== undefined && prediction !== null && prediction === label;
    if (label === -1) {
      nCorrect += 1;
      if (hit) hitsCorrect += 1;
    } else {
      nError += 1;
      if (hit) hitsError += 1;
    }
  }
  const accErr = nError ? hitsError / nError : 0;
  const accCor = nCorrect ? hitsCorrect / nCorrect : 0;
  return { n: items.length, n_error: nError, n_correct: nCorrect, acc_err: accErr, acc_cor: accCor, f1: f1FromAccuracies(accErr, accCor) };
}
