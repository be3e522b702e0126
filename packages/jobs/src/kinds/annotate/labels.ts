import { lowestConfidence, storedLabelRule, storedSolution, type Labelling, type StoredSolution } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";

export { labellingsOf, storedSolution, type Labelling, type StoredSolution } from "@stepwiser/core";

/**
 * Writes the labels of one solution with their confidence, and its lowest
 * confidence per rule. Existing label rows keep their label (idempotent);
 * their confidence is filled in or brought up to date (a relabel of a run
 * stored before confidences existed).
 */
export async function writeLabels(db: Db | Prisma.TransactionClient, runId: string, solutionId: string, chunkIds: readonly string[], labellings: readonly Labelling[]): Promise<number> {
  const rows: Prisma.ChunkLabelCreateManyInput[] = [];
  const lowest: { rule: string; paramsKey: string; confidence: number | null }[] = [];
  for (const { rule, labels, confidences } of labellings) {
    if (!labels) continue;
    const { rule: stored, paramsKey } = storedLabelRule(rule);
    labels.forEach((label, i) => rows.push({ chunkId: chunkIds[i]!, runId, rule: stored, paramsKey, label, confidence: confidences?.[i] ?? null }));
    lowest.push({ rule: stored, paramsKey, confidence: confidences ? lowestConfidence(confidences) : null });
  }
  if (rows.length === 0) return 0;
  const { count } = await db.chunkLabel.createMany({ data: rows, skipDuplicates: true });
  if (count < rows.length) {
    await db.$executeRaw`
      UPDATE "ChunkLabel" l SET confidence = v.c
        FROM unnest(${rows.map((r) => r.chunkId)}::text[], ${rows.map((r) => r.rule)}::text[], ${rows.map((r) => r.paramsKey)}::text[], ${rows.map((r) => r.confidence ?? null)}::float8[]) AS v(chunk, r, p, c)
       WHERE l."runId" = ${runId} AND l."chunkId" = v.chunk AND l.rule = v.r::"LabelRule" AND l."paramsKey" = v.p
         AND v.c IS NOT NULL AND l.confidence IS DISTINCT FROM v.c`;
  }
  await db.$executeRaw`
    INSERT INTO "SolutionLabelConfidence" ("runId", "solutionId", rule, "paramsKey", "lowestConfidence")
    SELECT ${runId}, ${solutionId}, v.r::"LabelRule", v.p, v.c
      FROM unnest(${lowest.map((l) => l.rule)}::text[], ${lowest.map((l) => l.paramsKey)}::text[], ${lowest.map((l) => l.confidence)}::float8[]) AS v(r, p, c)
    ON CONFLICT ("runId", "solutionId", rule, "paramsKey") DO UPDATE SET "lowestConfidence" = EXCLUDED."lowestConfidence"`;
  return rows.length;
}

/** Reads a solution's stored values back (Q_0 and every sampled prefix's estimate and counts). */
export async function readStoredSolution(db: Db, runId: string, segmentationId: string, chunkCount: number): Promise<StoredSolution> {
  const rows = await db.chunkValue.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, qValue: true, rolloutCount: true, correctCount: true } });
  return storedSolution(rows, chunkCount);
}
