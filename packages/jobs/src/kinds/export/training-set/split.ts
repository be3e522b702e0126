import { codePointLength, selectBalancedTrainingSet, shuffle, type BalancedSample, type BalancedSampleReport, type ClassCounts, type TrainingCandidate } from "@stepwiser/core";

export const SPLITS = ["train", "test"] as const;
export type SplitName = (typeof SPLITS)[number];

/**
 * The seeds of one export, all derived from the user's seed as strings (the
 * generator hashes a string seed), so each step draws from its own stream:
 * changing the held-out fraction re-draws the problems without shifting the
 * balancing draws of a split whose problems did not change.
 */
export function exportSeeds(seed: number): { problems: string; train: string; test: string } {
  return { problems: `${seed}:problems`, train: `${seed}:train`, test: `${seed}:test` };
}

/**
 * How many of `problemCount` problems are held out: the fraction rounded, at
 * least one when the fraction is positive and there are two problems or more
 * (a positive fraction should give a test split), and never every problem.
 */
export function heldOutProblemCount(problemCount: number, heldOutFraction: number): number {
  if (heldOutFraction <= 0 || problemCount < 2) return 0;
  return Math.min(problemCount - 1, Math.max(1, Math.round(heldOutFraction * problemCount)));
}

/** `value` rounded up to two significant digits (0.0333… → 0.034, 0.1 → 0.1). */
export function ceilTwoDigits(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return value;
  const unit = 10 ** (Math.floor(Math.log10(value)) - 1);
  // The tolerance keeps a value that is already two digits (0.1 read as 0.1000…02) where it is.
  return Number((Math.ceil(value / unit - 1e-9) * unit).toPrecision(2));
}

/** The largest held-out fraction an export accepts. */
export const MAX_HELD_OUT_FRACTION = 0.5;

/**
 * The smallest held-out fraction, to two significant digits rounded up, that holds out at
 * least `wanted` of `problemCount` problems and leaves one to train on, or undefined when
 * no accepted fraction does.
 */
export function heldOutFractionFor(wanted: number, problemCount: number): number | undefined {
  if (wanted < 1 || wanted > problemCount - 1) return undefined;
  const fraction = ceilTwoDigits(Math.max(1 / problemCount, wanted / problemCount));
  if (fraction > MAX_HELD_OUT_FRACTION || heldOutProblemCount(problemCount, fraction) < wanted) return undefined;
  return fraction;
}

export interface SplitSizes {
  heldOutFraction: number;
  /** Problems in the train and the test split (before any filter). */
  trainProblems: number;
  testProblems: number;
  /** Rows written to each split. */
  trainRows: number;
  testRows: number;
}

/**
 * Warnings for an export that writes a split of 0 rows while it was asked for both (a
 * positive held-out fraction): how many problems there are, why the split is empty, and a
 * held-out fraction that holds out one more problem when that may help. The same words go
 * to the manifest and, through the run's summary, to the command line.
 */
export function emptySplitWarnings(sizes: SplitSizes): string[] {
  const { heldOutFraction, trainProblems, testProblems, trainRows, testRows } = sizes;
  const problems = trainProblems + testProblems;
  const ofProblems = `${problems} problem${problems === 1 ? "" : "s"}`;
  if (trainRows === 0 && testRows === 0) {
    return problems === 0 ? [] : [`both splits are empty: no row of the ${ofProblems} is left after filtering and balancing`];
  }
  if (heldOutFraction <= 0) return [];
  if (testRows === 0) {
    if (problems < 2) {
      return [
        `the test split is empty: held-out fraction ${heldOutFraction} asks for one, but the labels cover ${ofProblems}, and all of a problem's rows go to one split; label more problems, or pass --held-out 0 to export without a test split`,
      ];
    }
    const wider = heldOutFractionFor(testProblems + 1, problems);
    const next = wider !== undefined ? `; --held-out ${wider} holds out ${heldOutProblemCount(problems, wider)} of them` : "; no held-out fraction up to 0.5 holds out more of them";
    return [`the test split is empty: held-out fraction ${heldOutFraction} holds out ${testProblems} of ${ofProblems}, and no row of ${testProblems === 1 ? "it" : "them"} is left after filtering and balancing${next}`];
  }
  if (trainRows === 0) {
    return [`the train split is empty: no row of its ${trainProblems} problem${trainProblems === 1 ? "" : "s"} (of ${ofProblems}) is left after filtering and balancing`];
  }
  return [];
}

/**
 * Held-out split by problem: every chunk of a problem (of all its solutions)
 * lands in one split, so the test split never shows the judge a problem it was
 * trained on. Ids are sorted before the seeded shuffle, so the split depends
 * on the set of problems and the seed, not on the order they were read in.
 */
export function splitProblems(problemIds: Iterable<string>, heldOutFraction: number, seed: string): Record<SplitName, Set<string>> {
  const sorted = [...new Set(problemIds)].sort();
  const shuffled = shuffle(sorted, seed);
  const testCount = heldOutProblemCount(sorted.length, heldOutFraction);
  return { test: new Set(shuffled.slice(0, testCount)), train: new Set(shuffled.slice(testCount)) };
}

/** The sampler's report, with the labels the confidence filter left out counted too. */
export interface SplitSampleReport extends BalancedSampleReport {
  /** `before`: every labelled chunk of the split, before any filter (the confidence filter included). */
  filteredOut: BalancedSampleReport["filteredOut"] & {
    /** Below minConfidence, or without a confidence while minConfidence is set. */
    lowConfidence: number;
  };
}

export interface SplitSelection<T> {
  items: T[];
  problems: number;
  report: SplitSampleReport;
}

/** Whether a label passes the confidence filter: every label without one; with it, a stored confidence of at least `minConfidence`. */
export function passesConfidence(confidence: number | null, minConfidence: number | undefined): boolean {
  return minConfidence === undefined || (confidence !== null && confidence >= minConfidence);
}

/**
 * Splits by problem, then filters by confidence and length and balances each
 * split 50/50 on its own (spec §3): balancing before splitting would leave the
 * splits unbalanced, and filtering after balancing would unbalance them again.
 * The split comes before the confidence filter, so the held-out problems do
 * not depend on minConfidence; without it the selection is what it was before
 * the filter existed (the sampler sees the same items).
 */
export function selectSplits<T extends TrainingCandidate & { problemId: string; confidence: number | null }>(
  items: readonly T[],
  options: { heldOutFraction: number; seed: number; minPromptChars?: number; maxPromptChars?: number; minConfidence?: number; balance?: boolean },
): Record<SplitName, SplitSelection<T>> {
  const seeds = exportSeeds(options.seed);
  const problems = splitProblems(
    items.map((item) => item.problemId),
    options.heldOutFraction,
    seeds.problems,
  );
  const select = (split: SplitName): SplitSelection<T> => {
    const members = items.filter((item) => problems[split].has(item.problemId));
    const kept: T[] = [];
    const dropped: ClassCounts = { positive: 0, negative: 0 };
    for (const item of members) {
      if (passesConfidence(item.confidence, options.minConfidence)) kept.push(item);
      else if (item.label === "Positive") dropped.positive += 1;
      else dropped.negative += 1;
    }
    const sampleOptions = { seed: seeds[split], minLength: options.minPromptChars, maxLength: options.maxPromptChars };
    const sample = options.balance === false ? selectFiltered(kept, sampleOptions) : selectBalancedTrainingSet(kept, sampleOptions);
    const { before, filteredOut } = sample.report;
    const report: SplitSampleReport = {
      ...sample.report,
      before: { positive: before.positive + dropped.positive, negative: before.negative + dropped.negative },
      filteredOut: { ...filteredOut, lowConfidence: dropped.positive + dropped.negative },
    };
    return { items: sample.items, problems: problems[split].size, report };
  };
  return { train: select("train"), test: select("test") };
}

/**
 * The sampler's length filter without the balancing: every item within the bounds
 * is kept (`after` = `eligible`), in an order shuffled with the split's seed.
 */
export function selectFiltered<T extends TrainingCandidate>(items: readonly T[], options: { seed: string; minLength?: number; maxLength?: number }): BalancedSample<T> {
  const before: ClassCounts = { positive: 0, negative: 0 };
  const eligible: ClassCounts = { positive: 0, negative: 0 };
  const filteredOut = { tooShort: 0, tooLong: 0 };
  const kept: T[] = [];
  for (const item of items) {
    const key = item.label === "Positive" ? "positive" : "negative";
    before[key] += 1;
    const length = options.minLength !== undefined || options.maxLength !== undefined ? codePointLength(item.prompt) : 0;
    if (options.minLength !== undefined && length < options.minLength) filteredOut.tooShort += 1;
    else if (options.maxLength !== undefined && length > options.maxLength) filteredOut.tooLong += 1;
    else {
      eligible[key] += 1;
      kept.push(item);
    }
  }
  return { items: shuffle(kept, options.seed), report: { before, filteredOut, eligible, after: { ...eligible }, seed: options.seed } };
}
