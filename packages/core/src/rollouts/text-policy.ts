/**
 * What an annotate run keeps of each rollout it stores. A rollout row always
 * keeps where it was drawn (run, solution, prefix, sample index), its seed, the
 * answer extracted from it, whether that answer was right and its token count:
 * enough to recompute every Q-value and label, to resume a run without
 * sampling again, and to re-grade answers. The text is what costs the space.
 *
 * - `full` (default): the continuation as generated, for reading in the inspector.
 * - `answer-only`: no text. At the paper's volume (≈ 64M rollouts of 500–1,500
 *   tokens) the texts are most of the database; a run that only needs labels
 *   keeps a few per cent of it (docs/DECISIONS.md, "Rollout storage").
 */
export const ROLLOUT_TEXT_POLICIES = ["full", "answer-only"] as const;
export type RolloutTextPolicy = (typeof ROLLOUT_TEXT_POLICIES)[number];
export const DEFAULT_ROLLOUT_TEXT_POLICY: RolloutTextPolicy = "full";

/** The text a rollout row stores under `policy`: the continuation, or null. */
export function storedRolloutText(policy: RolloutTextPolicy, text: string): string | null {
  return policy === "full" ? text : null;
}
