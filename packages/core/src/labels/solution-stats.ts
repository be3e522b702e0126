import type { Label } from "./label";

/** What a list needs to know about one solution's labels, without its chunks. */
export interface SolutionLabelStats {
  /** First Negative chunk under the primary labelling; -1 when none. */
  firstNegative: number;
  negativeCount: number;
  /** Some chunk is labelled differently by two of the labellings. */
  labelsDisagree: boolean;
}

/**
 * Summarises a solution labelled by one or more labellings of the same chunks
 * (e.g. Abs-Q, Rel-Ratio, Rel-Effective); the first labelling is the primary one.
 */
export function solutionLabelStats(labellings: readonly (readonly Label[])[]): SolutionLabelStats {
  const primary = labellings[0] ?? [];
  const labelsDisagree = labellings.some((labels) => labels.length !== primary.length || labels.some((label, i) => label !== primary[i]));
  return {
    firstNegative: primary.indexOf("Negative"),
    negativeCount: primary.filter((label) => label === "Negative").length,
    labelsDisagree,
  };
}

/** Lowest known Q-value of a solution's chunk prefixes; null when none was estimated. */
export function lowestQValue(values: readonly (number | null)[]): number | null {
  let lowest: number | null = null;
  for (const value of values) if (value !== null && (lowest === null || value < lowest)) lowest = value;
  return lowest;
}
