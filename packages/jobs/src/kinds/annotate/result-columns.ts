import { storedLabelRule, type LabelRule } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import type { RunResultColumns } from "../../runs/run-kind";

/**
 * What the runs list ranks an annotate run by: the Positive share of its labels
 * under its first label rule (the one its per-solution stats and its queues
 * default to), and their mean confidence (labels without one left out); null
 * without labels. One aggregate over the run's labels of that rule (its index).
 */
export async function annotateResultColumns(db: Db, runId: string, labelRules: readonly LabelRule[]): Promise<Pick<RunResultColumns, "labelBalance" | "meanConfidence">> {
  const first = labelRules[0];
  if (!first) return { labelBalance: null, meanConfidence: null };
  const { rule, paramsKey } = storedLabelRule(first);
  const [row] = await db.$queryRaw<{ positive: number; labels: number; confidence: number | null }[]>(Prisma.sql`
    SELECT count(*) FILTER (WHERE label = 'Positive')::int AS positive, count(*)::int AS labels, avg(confidence) AS confidence
    FROM "ChunkLabel"
    WHERE "runId" = ${runId} AND rule = ${rule}::"LabelRule" AND "paramsKey" = ${paramsKey}`);
  if (!row || row.labels === 0) return { labelBalance: null, meanConfidence: null };
  return { labelBalance: row.positive / row.labels, meanConfidence: row.confidence };
}
