import { z } from "zod";
import { count, segmentationStatsSchema, share } from "../../kit/summary-fields";

/** What a segment run's `summarize` stores. */
export const segmentSummarySchema = z.object({
  method: z.string(),
  solutions: count,
  created: count,
  skippedExisting: count,
  invalid: count,
  failedUnits: count,
  validShare: share.nullable(),
  byMethod: z.array(segmentationStatsSchema.extend({ method: z.string() })),
  /** llm-segmenter runs (absent before attempts existed): the attempt limit and the attempt each stored solution was accepted at. */
  attempts: z
    .object({
      limit: count,
      acceptedAt: z.array(z.object({ attempt: count, solutions: count })),
      requests: count,
    })
    .optional(),
  /** llm-segmenter runs: the solutions no attempt reconstructed (the first 100; `invalid` counts them all). */
  neverReconstructed: z.array(z.object({ solutionId: z.string(), externalId: z.string(), attempts: count, kind: z.string(), error: z.string() })).optional(),
});
