import { labelsFromStoredValues, storedLabelRule, storedSolutionValues, type LabelRule, type StoredSolutionValues } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";

/** Writes the labels of one solution under the given rules; existing rows for a rule are kept (idempotent). */
export async function writeLabels(
  db: Db | Prisma.TransactionClient,
  runId: string,
  chunkIds: readonly string[],
  values: StoredSolutionValues,
  rules: readonly LabelRule[],
): Promise<number> {
  const rows: Prisma.ChunkLabelCreateManyInput[] = [];
  for (const rule of rules) {
    const labels = labelsFromStoredValues(rule, values);
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
