import { z } from "zod";
import { count } from "../../kit/summary-fields";

/** What an annotate run's `summarize` stores. */
export const annotateSummarySchema = z.object({
  rollouts: count,
  chunkValues: count,
  rolloutCompletionTokens: count,
  monotonicity: z.object({ confirmed: count, assumed: count, violated: count }).optional(),
});
