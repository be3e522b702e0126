import type { PrefixEvidence } from "./confidence";
import type { Label } from "./label";
import { absQLabelsFromSuccesses, applyLabelRule, type LabelRule } from "./rules";

/**
 * What an annotate run stored for one solution, as the label rules read it:
 * Q_0 when the bare problem was sampled, and per chunk i the estimate of prefix
 * i+1 (`null` where the strategy did not sample it). The last entry is the
 * solution's own outcome (1 if its final answer is right, else 0), always known.
 */
export interface StoredSolutionValues {
  q0: number | null;
  q: readonly (number | null)[];
}

/** Stored values from `ChunkValue`-shaped rows of one solution with `chunkCount` chunks. */
export function storedSolutionValues(rows: readonly { prefixLength: number; qValue: number }[], chunkCount: number): StoredSolutionValues {
  const byLength = new Map(rows.map((row) => [row.prefixLength, row.qValue]));
  return { q0: byLength.get(0) ?? null, q: Array.from({ length: chunkCount }, (_, i) => byLength.get(i + 1) ?? null) };
}

/**
 * Per prefix, whether some rollout from it succeeded, with the prefixes a
 * strategy did not sample filled in: an unsampled prefix takes the outcome of
 * the next sampled prefix after it. Only `first-error` leaves gaps; this is
 * the monotonicity it assumes (success does not come back after the first
 * prefix without one), and the run flags every solution that rests on it.
 * `filled[i]` says whether entry i was inferred.
 */
export function prefixSuccesses(q: readonly (number | null)[]): { success: boolean[]; filled: boolean[] } {
  const success = new Array<boolean>(q.length);
  const filled = new Array<boolean>(q.length);
  let next = false;
  for (let i = q.length - 1; i >= 0; i--) {
    const value = q[i];
    if (value === null || value === undefined) {
      success[i] = next;
      filled[i] = true;
    } else {
      next = value > 0;
      success[i] = next;
      filled[i] = false;
    }
  }
  return { success, filled };
}

/**
 * The labels of every chunk under one rule, from stored values only (no new
 * rollout): what an annotate run writes, what `run relabel` writes later, and
 * what the inspector shows live. Abs-Q reads which prefixes had a success
 * (`prefixSuccesses`) with the rule's evidence; Rel-Ratio and Rel-Effective need
 * every Q-value and Q_0 (only `fixed` stores them), else null.
 */
export function labelsFromStoredValues(rule: LabelRule, values: StoredSolutionValues): Label[] | null {
  if (values.q.length === 0) return [];
  if (rule.rule === "abs-q") return absQLabelsFromSuccesses(prefixSuccesses(values.q).success, rule.evidence);
  if (values.q0 === null || values.q.some((v) => v === null)) return null;
  return applyLabelRule(rule, values.q0, values.q as number[]);
}

/**
 * Each prefix's evidence for label confidence from `ChunkValue`-shaped rows of
 * one solution with `chunkCount` chunks: entry j is prefix j (0 = the bare
 * problem). The finished solution (prefix k, stored with no rollout) is its
 * known outcome; a prefix with no row, or no rollout, is null.
 */
export function storedPrefixEvidence(rows: readonly { prefixLength: number; rolloutCount: number; correctCount: number }[], chunkCount: number): (PrefixEvidence | null)[] {
  const byLength = new Map(rows.map((row) => [row.prefixLength, row]));
  return Array.from({ length: chunkCount + 1 }, (_, j): PrefixEvidence | null => {
    const row = byLength.get(j);
    if (!row) return null;
    if (row.rolloutCount > 0) return { correct: row.correctCount, rollouts: row.rolloutCount };
    return j === chunkCount ? { known: row.correctCount > 0 ? 1 : 0 } : null;
  });
}
