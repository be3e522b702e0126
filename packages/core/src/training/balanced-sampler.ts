import { InputError } from "../errors/input-error";
import { createRng, sampleWithoutReplacement, shuffle, type Seed } from "../stats/random";
import type { BinaryLabel } from "../stats/confusion";

/**
 * Training-set selection for a stepwise judge, as in StepWiser: prompts are
 * balanced 50/50 Positive/Negative by downsampling the majority class (without
 * it the judge collapses toward always answering Positive), after very short
 * and very long prompts are filtered out.
 *
 * Order of operations, and why:
 * 1. Length filter first, so the classes are balanced among prompts that will
 *    really be trained on; balancing first and filtering after would leave an
 *    unbalanced set again.
 * 2. Keep every eligible item of the minority class; draw as many from the
 *    majority uniformly without replacement.
 * 3. Shuffle the union, so a trainer reading the output in order never sees
 *    one class in a block. The order is part of the seeded result: the same
 *    items, options and seed give the same items in the same order.
 *
 * If either class has no eligible item there is nothing to balance against:
 * the selection is empty and the report (see `eligible`) says why. This is
 * not an error, because a sweep over many filter settings should be able to
 * record the empty cell and move on.
 */

export interface TrainingCandidate {
  label: BinaryLabel;
  prompt: string;
}

export interface BalancedSampleOptions {
  seed: Seed;
  /** Prompts shorter than this are dropped (inclusive bound: length = min is kept). */
  minLength?: number;
  /** Prompts longer than this are dropped (inclusive bound: length = max is kept). */
  maxLength?: number;
  /**
   * Measures a prompt (default: Unicode code points, so "𝑥" counts once).
   * Pass a tokenizer's count to filter by tokens, as training budgets are.
   */
  length?: (prompt: string) => number;
}

export interface ClassCounts {
  positive: number;
  negative: number;
}

export interface BalancedSampleReport {
  /** Input counts, before any filter. */
  before: ClassCounts;
  filteredOut: { tooShort: number; tooLong: number };
  /** Counts that passed the filters, before downsampling. */
  eligible: ClassCounts;
  /** Counts selected: both equal min(eligible.positive, eligible.negative). */
  after: ClassCounts;
  seed: Seed;
}

export interface BalancedSample<T> {
  items: T[];
  report: BalancedSampleReport;
}

/** Code points, not UTF-16 units: an astral math symbol is one character to a reader. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

function checkBound(value: number | undefined, name: string): void {
  if (value !== undefined && !(value >= 0)) throw new RangeError(`${name} must be a non-negative number, got ${value}`);
}

export function selectBalancedTrainingSet<T extends TrainingCandidate>(
  items: readonly T[],
  options: BalancedSampleOptions,
): BalancedSample<T> {
  const { seed, minLength, maxLength, length = codePointLength } = options;
  // Created up front so a bad seed fails even when nothing ends up being drawn.
  // One stream for both draws below: the subset and its order follow from the seed alone.
  const rng = createRng(seed);
  checkBound(minLength, "minLength");
  checkBound(maxLength, "maxLength");
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    throw new RangeError(`minLength (${minLength}) must not exceed maxLength (${maxLength})`);
  }
  const before: ClassCounts = { positive: 0, negative: 0 };
  const filteredOut = { tooShort: 0, tooLong: 0 };
  const positives: T[] = [];
  const negatives: T[] = [];
  items.forEach((item, i) => {
    if (item.label !== "Positive" && item.label !== "Negative") {
      throw new InputError(`label must be "Positive" or "Negative", got ${JSON.stringify(item.label)}`, {
        record: i,
        field: "label",
      });
    }
    const positive = item.label === "Positive";
    if (positive) before.positive += 1;
    else before.negative += 1;
    // Measure only when a bound needs it: a tokenizer can be the costly part.
    if (minLength !== undefined || maxLength !== undefined) {
      const size = length(item.prompt);
      if (!Number.isFinite(size) || size < 0) {
        throw new InputError(`the length function returned ${size}; it must return a non-negative number`, {
          record: i,
          field: "prompt",
        });
      }
      if (minLength !== undefined && size < minLength) {
        filteredOut.tooShort += 1;
        return;
      }
      if (maxLength !== undefined && size > maxLength) {
        filteredOut.tooLong += 1;
        return;
      }
    }
    (positive ? positives : negatives).push(item);
  });
  const eligible: ClassCounts = { positive: positives.length, negative: negatives.length };
  const perClass = Math.min(positives.length, negatives.length);
  const report = (after: ClassCounts): BalancedSampleReport => ({ before, filteredOut, eligible, after, seed });
  if (perClass === 0) return { items: [], report: report({ positive: 0, negative: 0 }) };

  const keep = (group: T[]) => (group.length === perClass ? group : sampleWithoutReplacement(group, perClass, rng));
  const selected = shuffle([...keep(positives), ...keep(negatives)], rng);
  return { items: selected, report: report({ positive: perClass, negative: perClass }) };
}
