import { z } from "zod";
import { count, judgeOutputsSchema, share } from "../../kit/summary-fields";

/** What a chunk-reset run's `summarize` stores. */
export const chunkResetSummarySchema = z.object({
  problems: count,
  accuracy: z.object({ chunkReset: share, plain: share }),
  tokens: z.object({ accepted: count, rejected: count, plain: count }),
  resetsPerProblem: z.number().nonnegative(),
  judgeOutputs: judgeOutputsSchema.optional(),
  judgePromptTemplateId: z.string().optional(),
  policyPromptTemplateId: z.string().optional(),
});
