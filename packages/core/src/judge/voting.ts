import type { Label } from "../labels/label";
import type { Verdict } from "./verdict";

/** What a tied vote becomes (OPEN in the paper; Negative by default, the conservative choice). */
export type TiePolicy = "Negative" | "Positive";
export const DEFAULT_TIE_POLICY: TiePolicy = "Negative";

export interface VoteResult {
  verdict: Verdict;
  positive: number;
  negative: number;
  unparseable: number;
  tie: boolean;
}

/**
 * Majority over K sampled verdicts (Maj@K). Unparseable samples abstain; if all
 * abstain the vote is unparseable. A tie between Positive and Negative follows the policy.
 */
export function majorityVerdict(samples: readonly Verdict[], tiePolicy: TiePolicy = DEFAULT_TIE_POLICY): VoteResult {
  let positive = 0;
  let negative = 0;
  let unparseable = 0;
  for (const sample of samples) {
    if (sample === "Positive") positive += 1;
    else if (sample === "Negative") negative += 1;
    else unparseable += 1;
  }
  if (positive === 0 && negative === 0) return { verdict: "unparseable", positive, negative, unparseable, tie: false };
  const tie = positive === negative;
  const verdict: Label = tie ? tiePolicy : positive > negative ? "Positive" : "Negative";
  return { verdict, positive, negative, unparseable, tie };
}

/** Share of parsed samples that say Positive: a soft score for best-of-N and calibration. */
export function positiveShare(samples: readonly Verdict[]): number | null {
  const parsed = samples.filter((s) => s !== "unparseable");
  if (parsed.length === 0) return null;
  return parsed.filter((s) => s === "Positive").length / parsed.length;
}
