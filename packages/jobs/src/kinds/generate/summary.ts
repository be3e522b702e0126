import { z } from "zod";
import { count, segmentationStatsSchema, share } from "../../kit/summary-fields";

/** What a generate run's `summarize` stores. */
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
  selfSegmented: segmentationStatsSchema,
});
