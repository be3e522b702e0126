import { labelsFromStoredValues, storedLabelRule, storedSolutionValues, type Label, type LabelRule, type StoredSolutionValues } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";

/** One solution's labels under one rule; null where the stored values do not determine them. */
export interface Labelling {
  rule: LabelRule;
  labels: Label[] | null;
}

/** One solution's labels under each rule, from its stored values. */
export function labellingsOf(values: StoredSolutionValues, rules: readonly LabelRule[]): Labelling[] {
  return rules.map((rule) => ({ rule, labels: labelsFromStoredValues(rule, values) }));
}

/** Writes the labels of one solution; existing rows for a rule are kept (idempotent). */
export async function writeLabels(db: Db | Prisma.TransactionClient, runId: string, chunkIds: readonly string[], labellings: readonly Labelling[]): Promise<number> {
  const rows: Prisma.ChunkLabelCreateManyInput[] = [];
  for (const { rule, labels } of labellings) {
    if (!labels) continue;
    const { rule: stored, paramsKey } = storedLabelRule(rule);
    labels.forEach((label, i) => rows.push({ chunkId: chunkIds[i]!, runId, rule: stored, paramsKey, label }));
  }
  if (rows.length) await db.chunkLabel.createMany({ data: rows, skipDuplicates: true });
  return rows.length;
}

/** Reads a solution's stored values back (Q_0 and the estimate of every sampled prefix). */
export async function readStoredValues(db: Db, runId: string, segmentationId: string, chunkCount: number): Promise<StoredSolutionValues> {
  const stored = await db.chunkValue.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, qValue: true } });
  return storedSolutionValues(stored, chunkCount);
}
