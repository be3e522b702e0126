import { Prisma, type Db } from "@stepwiser/db";
import { SELF_SEGMENTED_METHOD } from "@stepwiser/jobs";
import { generateSummarySchema, readSummary } from "./summaries";
import type { ResultRun } from "./run";

/** Solutions with this many chunks or more share the last bar. */
export const GENERATED_CHUNKS_CAP = 30;

/**
 * A generate run's results: accuracy and the prompt filter's outcome from its
 * summary, and the shape of the solutions it wrote: chunks per solution
 * (a histogram over its self-segmentations) and solution length in
 * characters, counted in SQL over the output dataset.
 */
export async function generateResults(db: Db, run: ResultRun) {
  const summary = readSummary(generateSummarySchema, run.summary);
  if (!summary) return { kind: "generate" as const, summary, chunksPerSolution: [], solutionLength: null, tokensPerSolution: null };
  const datasetId = summary.outputDatasetId;
  const [chunkCounts, lengths] = await Promise.all([
    db.$queryRaw<{ value: number; solutions: number }[]>(Prisma.sql`
      WITH per_solution AS (
        SELECT COUNT(c.id)::int AS chunk_count
        FROM "Segmentation" s
        JOIN "Solution" t ON t.id = s."solutionId"
        LEFT JOIN "Chunk" c ON c."segmentationId" = s.id
        WHERE t."datasetId" = ${datasetId} AND s.method = ${SELF_SEGMENTED_METHOD}
        GROUP BY s.id
      )
      SELECT LEAST(chunk_count, ${GENERATED_CHUNKS_CAP}::int) AS value, COUNT(*)::int AS solutions FROM per_solution GROUP BY 1 ORDER BY 1`),
    db.$queryRaw<{ solutions: number; mean: number | null; median: number | null; min: number | null; max: number | null }[]>(Prisma.sql`
      SELECT COUNT(*)::int AS solutions, AVG(char_length(t.text))::float8 AS mean,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY char_length(t.text))::float8 AS median,
        MIN(char_length(t.text))::int AS min, MAX(char_length(t.text))::int AS max
      FROM "Solution" t WHERE t."datasetId" = ${datasetId}`),
  ]);
  const counts = new Map(chunkCounts.map((r) => [r.value, r.solutions]));
  const values = chunkCounts.map((r) => r.value);
  const from = Math.min(1, ...values);
  const to = values.length ? Math.max(...values) : 0;
  const length = lengths[0];
  return {
    kind: "generate" as const,
    summary,
    chunksPerSolution: Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => ({ chunks: from + i, orMore: from + i === GENERATED_CHUNKS_CAP, solutions: counts.get(from + i) ?? 0 })),
    solutionLength: length && length.solutions > 0 ? { mean: length.mean, median: length.median, min: length.min, max: length.max } : null,
    /** The run's generated tokens per solution written (retries and failed samples included in the tokens). */
    tokensPerSolution: summary.solutions > 0 ? Number(run.completionTokens) / summary.solutions : null,
  };
}
