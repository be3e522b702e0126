import type { Label } from "../labels/label";
import type { Verdict } from "../judge/verdict";
import { binaryMetrics, type ClassMetrics, type ConfusionMatrix } from "./confusion";

/**
 * Step-level scores of a judge against gold step labels (any labelled set: PRMBench's error steps,
 * Math-Shepherd's hard labels, PRM800K's ratings, imported JSONL labels): F1 of each class, and
 * balanced accuracy, the mean of the two classes' recalls (an unparseable verdict counts against
 * both). ProcessBench's first-error metric is another thing and stays as it is.
 */
export function stepLevelScores(matrix: ConfusionMatrix): { positive: ClassMetrics; negative: ClassMetrics; balancedAccuracy: number } {
  const metrics = binaryMetrics(matrix);
  return { positive: metrics.positive, negative: metrics.negative, balancedAccuracy: (metrics.positive.recall + metrics.negative.recall) / 2 };
}

/** One solution's gold step labels and the judge's verdicts on the same steps. */
export interface SolutionSteps {
  gold: readonly Label[];
  predicted: readonly Verdict[];
}

/**
 * Solution-level error detection: a solution "has an error" when a gold step is Negative, and the
 * judge says so when it calls a step Negative (an unparseable verdict is not a Negative one). F1,
 * precision and recall of the "has an error" class, with the counts.
 */
export function solutionErrorDetection(solutions: Iterable<SolutionSteps>): { solutions: number; withError: number; flagged: number; precision: number; recall: number; f1: number } {
  let total = 0;
  let withError = 0;
  let flagged = 0;
  let hits = 0;
  for (const solution of solutions) {
    total += 1;
    const gold = solution.gold.includes("Negative");
    const predicted = solution.predicted.includes("Negative");
    if (gold) withError += 1;
    if (predicted) flagged += 1;
    if (gold && predicted) hits += 1;
  }
  const precision = flagged ? hits / flagged : 0;
  const recall = withError ? hits / withError : 0;
  return { solutions: total, withError, flagged, precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}
