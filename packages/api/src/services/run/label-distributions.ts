import { Prisma, type Db, type LabelRule } from "@stepwiser/db";

/** Q-values in [0, 1] in bins of 0.1; Q = 1 belongs to the last bin. */
export const Q_VALUE_BINS = 10;

/** Which annotate runs a distribution covers: every one of a dataset, or one run. */
export type AnnotateScope = { datasetId: string } | { runId: string };

const scopeCondition = (scope: AnnotateScope, alias: "cv" | "cl") =>
  "datasetId" in scope ? Prisma.sql`r."datasetId" = ${scope.datasetId}` : alias === "cv" ? Prisma.sql`cv."runId" = ${scope.runId}` : Prisma.sql`cl."runId" = ${scope.runId}`;

/**
 * Stored Q-values per annotate run in bins of 1/Q_VALUE_BINS: `bucket` is
 * width_bucket's 1-based bin, Q = 1 folded into the last. Prefix 0 is the bare
 * problem (Q₀), not a chunk's value, and is left out. One GROUP BY in PostgreSQL.
 */
export function qValueCounts(db: Db, scope: AnnotateScope) {
  return db.$queryRaw<{ runId: string; bucket: number; count: number }[]>(Prisma.sql`
    SELECT cv."runId", LEAST(width_bucket(cv."qValue", 0, 1, ${Q_VALUE_BINS}::int), ${Q_VALUE_BINS}::int) AS bucket, COUNT(*)::int AS count
    FROM "ChunkValue" cv
    JOIN "Run" r ON r.id = cv."runId"
    WHERE ${scopeCondition(scope, "cv")} AND r.kind = 'annotate' AND cv."prefixLength" > 0
    GROUP BY 1, 2`);
}

/** Positive and Negative chunk labels per (run, rule, parameters), in that order. One GROUP BY in PostgreSQL. */
export function labelBalanceCounts(db: Db, scope: AnnotateScope) {
  return db.$queryRaw<{ runId: string; rule: LabelRule; paramsKey: string; positive: number; negative: number }[]>(Prisma.sql`
    SELECT cl."runId", cl.rule::text AS rule, cl."paramsKey",
      COUNT(*) FILTER (WHERE cl.label = 'Positive')::int AS positive,
      COUNT(*) FILTER (WHERE cl.label = 'Negative')::int AS negative
    FROM "ChunkLabel" cl
    JOIN "Run" r ON r.id = cl."runId"
    WHERE ${scopeCondition(scope, "cl")}
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3`);
}

/** The Q_VALUE_BINS bins of one run from `qValueCounts` rows, empty bins included. */
export function qValueBins(rows: readonly { runId: string; bucket: number; count: number }[], runId: string) {
  const counts = new Map(rows.filter((r) => r.runId === runId).map((r) => [r.bucket, r.count]));
  return Array.from({ length: Q_VALUE_BINS }, (_, i) => ({ from: i / Q_VALUE_BINS, to: (i + 1) / Q_VALUE_BINS, count: counts.get(i + 1) ?? 0 }));
}
