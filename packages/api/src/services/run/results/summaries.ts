import { z } from "zod";

export { exportSummarySchema, readSummary } from "@stepwiser/jobs";

/**
 * Readers of the summaries the pipelines store on `Run.summary` when a run
 * ends (`summarize` of each kind in packages/jobs/src/pipelines). The column
 * is JSON written by whichever version ran the run, so it is parsed, not
 * trusted: a summary of another shape reads as null and the page falls back
 * to the raw JSON.
 */

const count = z.number().int().nonnegative();
const share = z.number().min(0).max(1);
const distribution = z.object({ mean: z.number().nullable(), median: z.number().nullable(), min: z.number().nullable(), max: z.number().nullable() });
const segmentationStats = z.object({
  solutions: count,
  chunks: count,
  chunksPerSolution: distribution,
  charactersPerChunk: distribution,
  tokensPerChunk: distribution,
  oneLineChunkShare: share.nullable(),
});

export const annotateSummarySchema = z.object({
  rollouts: count,
  chunkValues: count,
  rolloutCompletionTokens: count,
  monotonicity: z.object({ confirmed: count, assumed: count, violated: count }).optional(),
});

/** A judge run's outputs: how many, how many cut at the generation limit, how many ended unreadable (summaries written before they were counted lack them). */
export const judgeOutputsSchema = z.object({ outputs: count, truncated: count, unparseable: count });

export const judgeSummarySchema = z.object({
  samples: count,
  verdicts: z.object({ Positive: count.optional(), Negative: count.optional(), unparseable: count.optional() }),
  unparseableRate: share,
  judgeOutputs: judgeOutputsSchema.optional(),
  judgePromptTemplateId: z.string().optional(),
});

const subsetScore = z.object({ n: count, n_error: count, n_correct: count, acc_err: share, acc_cor: share, f1: share });
const interval = z.object({ lower: z.number(), upper: z.number() });
const intervalBySubset = z.record(z.string(), interval);
export const benchmarkSummarySchema = z.object({
  /** `id@vN` of the judge protocol; summaries written before protocols say `mode` instead. */
  protocol: z.string().optional(),
  mode: z.enum(["chunk-judge", "critic"]).optional(),
  promptTemplateId: z.string().nullable().optional(),
  judge: z.string().optional(),
  subsets: z.record(z.string(), subsetScore),
  average_f1: share,
  /** The subsets averaged (sorted) and whether that is fewer or other than ProcessBench's four; summaries written before them derive both from `subsets`. */
  subsets_in_average: z.array(z.string()).optional(),
  average_is_partial: z.boolean().optional(),
  f1_ci95: intervalBySubset,
  /** Written since every ProcessBench number has its bootstrap interval; older summaries lack them (the results page recomputes them). */
  acc_err_ci95: intervalBySubset.optional(),
  acc_cor_ci95: intervalBySubset.optional(),
  average_f1_ci95: interval.nullable().optional(),
  unparseable: count,
  missing: count,
  judgeOutputs: judgeOutputsSchema.optional(),
});

export const generateSummarySchema = z.object({
  outputDatasetId: z.string(),
  outputDatasetName: z.string(),
  problems: count,
  solutions: count,
  correct: count,
  accuracy: share.nullable(),
  filter: z.object({ enabled: z.boolean(), mixed: count, allCorrect: count, allWrong: count, kept: count, keptShare: share.nullable() }),
  invalidSegmentations: count,
  truncatedSamples: count,
  problemsWithoutReference: count,
  selfSegmented: segmentationStats,
});

export const chunkResetSummarySchema = z.object({
  problems: count,
  accuracy: z.object({ chunkReset: share, plain: share }),
  tokens: z.object({ accepted: count, rejected: count, plain: count }),
  resetsPerProblem: z.number().nonnegative(),
  judgeOutputs: judgeOutputsSchema.optional(),
  judgePromptTemplateId: z.string().optional(),
  policyPromptTemplateId: z.string().optional(),
});

export const bestOfNSummarySchema = z.object({
  problems: count,
  accuracy: z.object({ mean: share, min: share, last: share, majority: share, random: share, oracle: share }),
  judgeOutputs: judgeOutputsSchema.optional(),
  judgePromptTemplateId: z.string().optional(),
});

export const segmentSummarySchema = z.object({
  method: z.string(),
  trajectories: count,
  created: count,
  skippedExisting: count,
  invalid: count,
  failedUnits: count,
  validShare: share.nullable(),
  byMethod: z.array(segmentationStats.extend({ method: z.string() })),
});

/** A file import (the format's counts) or an OpenAI batch output import (requests and samples stored for an offline run). */
export const importSummarySchema = z.union([
  z.object({
    format: z.literal("openai-batch-output"),
    targetRunId: z.string(),
    requests: count,
    samples: count,
    skipped: count,
    promptTokens: count.optional(),
    completionTokens: count.optional(),
  }),
  z.object({
    format: z.string(),
    records: count,
    written: count,
    skipped: count,
    replaced: count,
    chunks: count,
    humanLabels: count,
    chunkLabels: count,
    duplicateOfRunId: z.string().optional(),
  }),
]);

/**
 * The scalar facts of an export's report, flattened to dotted names
 * ("rows.train": 120): an export kind's report has its own shape, and this
 * view only lists what it counted.
 */
export function reportFacts(report: unknown, prefix = "", depth = 0): { name: string; value: number | string | boolean }[] {
  if (report === null || typeof report !== "object" || depth > 3) return [];
  const facts: { name: string; value: number | string | boolean }[] = [];
  for (const [key, value] of Object.entries(report as Record<string, unknown>)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "number" || typeof value === "boolean" || (typeof value === "string" && value.length <= 200)) facts.push({ name, value });
    else if (value && typeof value === "object" && !Array.isArray(value)) facts.push(...reportFacts(value, name, depth + 1));
  }
  return facts;
}
