import { NotFoundError } from "@stepwiser/core";
import { Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { describeRun } from "@stepwiser/jobs";
import { confidenceHistograms } from "../run/confidence-histogram";
import { labelBalanceCounts, qValueBins, qValueCounts } from "../run/label-distributions";

/** Solutions with this many chunks or more share the last bar, so a few very long solutions keep the axis readable. */
export const CHUNKS_PER_SOLUTION_CAP = 30;
/** First errors at this chunk or later share the last bar. */
export const FIRST_ERROR_POSITION_CAP = 20;
/**
 * Lower edges of the chunk-length bins (characters): narrow where most chunks
 * are, widening geometrically so a long tail does not squash the rest; the
 * last bin is open-ended.
 */
export const CHUNK_LENGTH_EDGES = [0, 20, 40, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500, 650, 800, 1000, 1300, 1600, 2000, 3000] as const;

export interface CountBin {
  value: number;
  /** The capped bin: `value` or more. */
  orMore: boolean;
  solutions: number;
}
export interface RangeBin {
  from: number;
  /** Exclusive upper edge; null for the open-ended last bin. */
  to: number | null;
  count: number;
}
export interface FirstErrorBin {
  position: number | "none";
  orMore: boolean;
  count: number;
}
export interface FirstErrorSeries {
  source: "source" | "annotate" | "judge";
  runId?: string;
  label: string;
  bins: FirstErrorBin[];
}

function firstErrorBins(counts: Map<number, number>, lastPosition: number): FirstErrorBin[] {
  const bins: FirstErrorBin[] = Array.from({ length: lastPosition + 1 }, (_, position) => ({
    position,
    orMore: position === FIRST_ERROR_POSITION_CAP,
    count: counts.get(position) ?? 0,
  }));
  bins.push({ position: "none", orMore: false, count: counts.get(-1) ?? 0 });
  return bins;
}

/**
 * The dataset's distributions for its overview plots. Every aggregate is a
 * GROUP BY in PostgreSQL returning a few rows per bin: a dataset may hold a
 * million chunks, none of which is read into Node.
 */
export async function datasetOverview({ db, input }: ServiceArgs<{ datasetId: string }>) {
  const { datasetId } = input;
  const dataset = await db.dataset.findUnique({ where: { id: datasetId }, select: { id: true, source: true } });
  if (!dataset) throw new NotFoundError(`dataset ${datasetId} does not exist`);

  const [runs, chunkCounts, chunkLengths, qValues, labelCounts, sourceFirstErrors, runFirstErrors, confidenceCounts] = await Promise.all([
    db.run.findMany({
      where: { datasetId, kind: { in: ["annotate", "judge"] } },
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
      select: { id: true, kind: true, name: true, createdAt: true, config: true },
    }),
    db.$queryRaw<{ method: string; value: number; solutions: number; chunks: number }[]>(Prisma.sql`
      WITH per_solution AS (
        SELECT s.method, COUNT(c.id)::int AS chunk_count
        FROM "Segmentation" s
        JOIN "Solution" t ON t.id = s."solutionId"
        LEFT JOIN "Chunk" c ON c."segmentationId" = s.id
        WHERE t."datasetId" = ${datasetId}
        GROUP BY s.id, s.method
      )
      SELECT method, LEAST(chunk_count, ${CHUNKS_PER_SOLUTION_CAP}::int) AS value, COUNT(*)::int AS solutions, SUM(chunk_count)::int AS chunks
      FROM per_solution
      GROUP BY 1, 2
      ORDER BY 1, 2`),
    // Offsets rather than char_length(text): same length (text is the offsets' slice) without reading every chunk's text.
    db.$queryRaw<{ method: string; bucket: number; chunks: number }[]>(Prisma.sql`
      SELECT s.method, width_bucket(c."endOffset" - c."startOffset", ARRAY[${Prisma.join([...CHUNK_LENGTH_EDGES])}]::int[]) AS bucket, COUNT(*)::int AS chunks
      FROM "Chunk" c
      JOIN "Segmentation" s ON s.id = c."segmentationId"
      JOIN "Solution" t ON t.id = s."solutionId"
      WHERE t."datasetId" = ${datasetId}
      GROUP BY 1, 2`),
    qValueCounts(db, { datasetId }),
    labelBalanceCounts(db, { datasetId }),
    db.$queryRaw<{ position: number; count: number }[]>(Prisma.sql`
      SELECT GREATEST(LEAST(t."sourceFirstErrorIndex", ${FIRST_ERROR_POSITION_CAP}::int), -1) AS position, COUNT(*)::int AS count
      FROM "Solution" t
      WHERE t."datasetId" = ${datasetId} AND t."sourceFirstErrorIndex" IS NOT NULL
      GROUP BY 1`),
    // Reached through the dataset's runs so the (runId, firstNegative) index answers it.
    db.$queryRaw<{ runId: string; position: number; count: number }[]>(Prisma.sql`
      SELECT st."runId", GREATEST(LEAST(st."firstNegative", ${FIRST_ERROR_POSITION_CAP}::int), -1) AS position, COUNT(*)::int AS count
      FROM "SolutionRunStat" st
      JOIN "Run" r ON r.id = st."runId"
      WHERE r."datasetId" = ${datasetId} AND r.kind IN ('annotate', 'judge')
      GROUP BY 1, 2`),
    confidenceHistograms(db, { datasetId }),
  ]);
  const runOrder = new Map(runs.map((run, i) => [run.id, i]));
  const runLabel = new Map(runs.map((run) => [run.id, describeRun(run)]));

  const methods = [...new Set([...chunkCounts.map((r) => r.method), ...chunkLengths.map((r) => r.method)])].sort();
  const segmentations = methods.map((method) => {
    const counts = chunkCounts.filter((r) => r.method === method);
    const lengths = new Map(chunkLengths.filter((r) => r.method === method).map((r) => [r.bucket, r.chunks]));
    const values = counts.map((r) => r.value);
    const fromValue = Math.min(1, ...values);
    const toValue = Math.max(...values);
    const solutionsWith = new Map(counts.map((r) => [r.value, r.solutions]));
    return {
      method,
      solutions: counts.reduce((sum, r) => sum + r.solutions, 0),
      chunks: counts.reduce((sum, r) => sum + r.chunks, 0),
      chunksPerSolution: Array.from({ length: toValue - fromValue + 1 }, (_, i): CountBin => {
        const value = fromValue + i;
        return { value, orMore: value === CHUNKS_PER_SOLUTION_CAP, solutions: solutionsWith.get(value) ?? 0 };
      }),
      // width_bucket numbers the bin starting at edge i as i + 1.
      chunkLength: CHUNK_LENGTH_EDGES.map((from, i): RangeBin => ({ from, to: CHUNK_LENGTH_EDGES[i + 1] ?? null, count: lengths.get(i + 1) ?? 0 })),
    };
  });

  const qValueHistograms = runs
    .filter((run) => run.kind === "annotate")
    .map((run) => ({ runId: run.id, label: runLabel.get(run.id)!, bins: qValueBins(qValues, run.id) }));

  const labelBalance = labelCounts
    .map((r) => ({ runId: r.runId, runLabel: runLabel.get(r.runId) ?? r.runId, rule: r.rule, paramsKey: r.paramsKey, positive: r.positive, negative: r.negative }))
    .sort((a, b) => (runOrder.get(a.runId) ?? runs.length) - (runOrder.get(b.runId) ?? runs.length));

  // Per annotate run (newest first), then rule and parameters.
  const confidence = confidenceCounts
    .map((h) => ({ ...h, runLabel: runLabel.get(h.runId) ?? h.runId }))
    .sort((a, b) => (runOrder.get(a.runId) ?? runs.length) - (runOrder.get(b.runId) ?? runs.length));

  // Every series gets the same positions so they can be drawn side by side.
  const lastPosition = Math.max(-1, ...sourceFirstErrors.map((r) => r.position), ...runFirstErrors.map((r) => r.position));
  const firstError: FirstErrorSeries[] = [];
  if (sourceFirstErrors.length > 0) {
    firstError.push({
      source: "source",
      // A simulated dataset's source labels are the world's ground truth (see createSimWorldDataset).
      label: dataset.source === "sim-world" ? "simulated ground truth" : "source labels",
      bins: firstErrorBins(new Map(sourceFirstErrors.map((r) => [r.position, r.count])), lastPosition),
    });
  }
  for (const run of runs) {
    const rows = runFirstErrors.filter((r) => r.runId === run.id);
    if (rows.length === 0) continue;
    firstError.push({
      source: run.kind === "annotate" ? "annotate" : "judge",
      runId: run.id,
      label: runLabel.get(run.id)!,
      bins: firstErrorBins(new Map(rows.map((r) => [r.position, r.count])), lastPosition),
    });
  }

  return { datasetId, segmentations, qValues: qValueHistograms, labelBalance, confidence, firstError };
}
