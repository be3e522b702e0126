import type { Verdict } from "../judge/verdict";

/*
 * How each protocol's output becomes PRMBench step labels (true = the step is correct).
 * An item whose reading cannot be made is left out, as PRMBench's evaluator leaves out an
 * item whose model output is not valid (`validity` false): it is counted, never guessed.
 */

export type StepLabelReading = { labels: boolean[] } | { invalid: string };

/** A stepwise judge's majority verdict per step, in step order: Positive is a correct step; any unparseable verdict makes the item invalid. */
export function stepLabelsFromVerdicts(verdicts: readonly Verdict[]): StepLabelReading {
  const unparseable = verdicts.indexOf("unparseable");
  if (unparseable !== -1) return { invalid: `step ${unparseable + 1}'s verdict is unparseable` };
  if (verdicts.length === 0) return { invalid: "no step was judged" };
  return { labels: verdicts.map((verdict) => verdict === "Positive") };
}

/**
 * A critic's first-error answer (ProcessBench's reading, 0-based; -1 for none) read as step labels:
 * the steps before it correct, it and every step after it wrong; -1 makes every step correct.
 * An unparseable answer (null) or an index past the last step makes the item invalid.
 */
export function stepLabelsFromFirstError(firstError: number | null, stepCount: number): StepLabelReading {
  if (firstError === null) return { invalid: "the critic's answer is unparseable" };
  if (firstError === -1) return { labels: Array.from({ length: stepCount }, () => true) };
  if (firstError < 0 || firstError >= stepCount) return { invalid: `the critic named step index ${firstError}, outside the ${stepCount} steps` };
  return { labels: Array.from({ length: stepCount }, (_, i) => i < firstError) };
}
