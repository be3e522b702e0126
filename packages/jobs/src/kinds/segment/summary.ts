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
});
