import { CONFIDENCE_BINS, LABEL_EPSILON, NotFoundError } from "@stepwiser/core";
import { Prisma, type Db, type LabelRule } from "@stepwiser/db";
import type { ServiceArgs } from "../args";

/** One tenth of confidence: [from, to), the last bin [0.9, 1.0] closed. */
export interface ConfidenceBin {
  from: number;
  to: number;
  count: number;
}

/** How sure the labels of one annotate run under one rule and parameter setting are. */
export interface ConfidenceHistogram {
  runId: string;
  /** Stored rule name (abs_q, rel_ratio, rel_effective) and canonical parameters, as `ChunkLabel` holds them. */
  rule: LabelRule;
  paramsKey: string;
  /** Always CONFIDENCE_BINS bins, empty ones included; bin i holds confidences with core's `confidenceBin(c) = i`. */
  bins: ConfidenceBin[];
  /** Labels stored without a confidence (prefixes that were not sampled, labels stored before confidences existed), counted apart. */
  noConfidence: number;
  /** Every label of the run under the rule: the bins' counts plus `noConfidence`. */
  labels: number;
}

/**
 * Label-confidence histograms per (annotate run, rule, parameters), of every
 * annotate run of a dataset or of one run. One GROUP BY in PostgreSQL on the
 * (runId, rule, paramsKey) index: a few rows per rule, no label read into
 * Node. A confidence c lands in bin ⌊10c + ε⌋ capped at 9, exactly as core's
 * `confidenceBin` bins it (ε absorbs 0.3 × 10 = 2.999…), so 1.0 is in the last bin.
 */
export async function confidenceHistograms(db: Db, scope: { datasetId: string } | { runId: string }): Promise<ConfidenceHistogram[]> {
  const where = "datasetId" in scope ? Prisma.sql`r."datasetId" = ${scope.datasetId}` : Prisma.sql`cl."runId" = ${scope.runId}`;
  const rows = await db.$queryRaw<{ runId: string; rule: LabelRule; paramsKey: string; bin: number | null; count: number }[]>(Prisma.sql`
    SELECT cl."runId", cl.rule::text AS rule, cl."paramsKey",
      CASE WHEN cl.confidence IS NULL THEN NULL
        ELSE GREATEST(0, LEAST(FLOOR(cl.confidence * ${CONFIDENCE_BINS}::int + ${LABEL_EPSILON}::float8), ${CONFIDENCE_BINS - 1}::int))::int END AS bin,
      COUNT(*)::int AS count
    FROM "ChunkLabel" cl
    JOIN "Run" r ON r.id = cl."runId"
    WHERE ${where} AND r.kind = 'annotate'
    GROUP BY 1, 2, 3, 4`);
  const byKey = new Map<string, ConfidenceHistogram>();
  for (const row of rows) {
    const key = JSON.stringify([row.runId, row.rule, row.paramsKey]);
    let histogram = byKey.get(key);
    if (!histogram) {
      histogram = {
        runId: row.runId,
        rule: row.rule,
        paramsKey: row.paramsKey,
        bins: Array.from({ length: CONFIDENCE_BINS }, (_, i) => ({ from: i / CONFIDENCE_BINS, to: (i + 1) / CONFIDENCE_BINS, count: 0 })),
        noConfidence: 0,
        labels: 0,
      };
      byKey.set(key, histogram);
    }
    if (row.bin === null) histogram.noConfidence += row.count;
    else histogram.bins[row.bin]!.count += row.count;
    histogram.labels += row.count;
  }
  // Compared as JavaScript strings, not by the database's collation, so the order is the same on any database.
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...byKey.values()].sort((a, b) => compare(a.runId, b.runId) || compare(a.rule, b.rule) || compare(a.paramsKey, b.paramsKey));
}

/** The label-confidence histograms of one run, one per rule and parameter setting it labelled with (none for a run that is not an annotate run). */
export async function runConfidence({ db, input }: ServiceArgs<{ id: string }>) {
  const run = await db.run.findUnique({ where: { id: input.id }, select: { id: true, kind: true } });
  if (!run) throw new NotFoundError(`run ${input.id} does not exist`);
  return { runId: run.id, kind: run.kind, histograms: run.kind === "annotate" ? await confidenceHistograms(db, { runId: run.id }) : [] };
}
