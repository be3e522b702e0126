import { absQLabelsFromWitnesses, applyLabelRule, labelRuleParamsKey, type Label, type LabelRule } from "@stepwiser/core";
import type { Db, LabelRule as DbLabelRule, Prisma } from "@stepwiser/db";

export const DB_RULE: Record<LabelRule["rule"], DbLabelRule> = { "abs-q": "abs_q", "rel-ratio": "rel_ratio", "rel-effective": "rel_effective" };

/** Values known for one annotated solution, as stored. */
export interface StoredValues {
  /** Q_0, the bare problem's value, when it was sampled. */
  q0: number | null;
  /** Q after chunk i (index i ↔ prefix length i + 1); null where the strategy did not sample. */
  q: (number | null)[];
  /** Evidence of success from prefix i + 1 or later. */
  successAtPrefix: boolean[];
}

/** Labels of every chunk under one rule, from stored values only (no new rollouts). */
export function labelsFor(rule: LabelRule, values: StoredValues): Label[] | null {
  if (rule.rule === "abs-q") return absQLabelsFromWitnesses(values.successAtPrefix);
  if (values.q0 === null || values.q.some((v) => v === null)) return null; // needs every Q-value: only `fixed` has them
  return applyLabelRule(rule, values.q0, values.q as number[]);
}

/** Writes the labels of one solution under the given rules; existing rows for a rule are kept (idempotent). */
export async function writeLabels(
  db: Db | Prisma.TransactionClient,
  runId: string,
  chunkIds: readonly string[],
  values: StoredValues,
  rules: readonly LabelRule[],
): Promise<number> {
  const rows: Prisma.ChunkLabelCreateManyInput[] = [];
  for (const rule of rules) {
    const labels = labelsFor(rule, values);
    if (!labels) continue;
    labels.forEach((label, i) => rows.push({ chunkId: chunkIds[i]!, runId, rule: DB_RULE[rule.rule], paramsKey: labelRuleParamsKey(rule), label }));
  }
  if (rows.length) await db.chunkLabel.createMany({ data: rows, skipDuplicates: true });
  return rows.length;
}

/**
 * Reads a solution's stored values back: Q-values per prefix and the success
 * evidence (a stored value with a correct rollout, or the final answer).
 */
export async function readStoredValues(db: Db, runId: string, segmentationId: string, chunkCount: number): Promise<StoredValues> {
  const stored = await db.chunkValue.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, qValue: true, correctCount: true, rolloutCount: true } });
  const byLength = new Map(stored.map((v) => [v.prefixLength, v]));
  const q = Array.from({ length: chunkCount }, (_, i) => byLength.get(i + 1)?.qValue ?? null);
  const successAtPrefix = Array.from({ length: chunkCount }, (_, i) => (byLength.get(i + 1)?.correctCount ?? 0) > 0);
  return { q0: byLength.get(0)?.qValue ?? null, q, successAtPrefix };
}
