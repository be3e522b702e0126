import type { Label } from "../labels/label";
import type { Verdict } from "./verdict";

/**
 * How a chunk whose verdict is unparseable counts when reading a solution's first
 * error: "invalid" makes the prediction itself unparseable (null) if no Negative
 * came before it; the other two treat it as that label.
 */
export type UnparseableChunkPolicy = "invalid" | "Negative" | "Positive";
export const DEFAULT_UNPARSEABLE_CHUNK_POLICY: UnparseableChunkPolicy = "invalid";

/**
 * Solution-level prediction from per-chunk verdicts (spec §3): the index of the
 * first chunk judged Negative, -1 if none; null when it cannot be told.
 */
export function predictFirstError(
  verdicts: readonly Verdict[],
  policy: UnparseableChunkPolicy = DEFAULT_UNPARSEABLE_CHUNK_POLICY,
): number | null {
  for (let i = 0; i < verdicts.length; i++) {
    const verdict = verdicts[i] === "unparseable" ? policy : verdicts[i];
    if (verdict === "invalid") return null;
    if (verdict === "Negative") return i;
  }
  return -1;
}

/** GRPO reward for one judge sample (spec §3): 1 iff its verdict equals the chunk's label. */
export function judgeReward(verdict: Verdict, label: Label): 0 | 1 {
  return verdict === label ? 1 : 0;
}
