/** A chunk's binary label: Positive = a sound step, Negative = a step that hurts the solution. */
export const LABELS = ["Positive", "Negative"] as const;
export type Label = (typeof LABELS)[number];

/** Index of the first Negative chunk, or -1 when every chunk is Positive. */
export function firstErrorIndex(labels: readonly Label[]): number {
  return labels.indexOf("Negative");
}

/**
 * Below this, two floating-point quantities are treated as equal, so that a ratio
 * of Monte-Carlo estimates landing exactly on a threshold (7/16 ÷ 10/16 vs 0.7)
 * is decided by the rule's strict inequality, not by rounding noise.
 */
export const LABEL_EPSILON = 1e-9;
