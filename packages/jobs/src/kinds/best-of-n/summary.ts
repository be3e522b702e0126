import { z } from "zod";
import { count, judgeOutputsSchema, share } from "../../kit/summary-fields";

/** What a best-of-N run's `summarize` stores. */
export const bestOfNSummarySchema = z.object({
  problems: count,
  accuracy: z.object({ mean: share, min: share, last: share, majority: share, random: share, oracle: share }),
  judgeOutputs: judgeOutputsSchema.optional(),
  judgePromptTemplateId: z.string().optional(),
});
