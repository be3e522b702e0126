import { z } from "zod";
import { count, judgeOutputsSchema, share } from "../../kit/summary-fields";

/** What a judge run's `summarize` stores. */
export const judgeSummarySchema = z.object({
  samples: count,
  verdicts: z.object({ Positive: count.optional(), Negative: count.optional(), unparseable: count.optional() }),
  unparseableRate: share,
  judgeOutputs: judgeOutputsSchema.optional(),
  judgePromptTemplateId: z.string().optional(),
});
