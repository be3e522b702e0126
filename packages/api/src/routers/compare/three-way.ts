import { THREE_WAY_PATTERNS } from "@stepwiser/core";
import { z } from "zod";
import { storedRuleSchema } from "../../services/compare/readings";
import { compareThreeWay } from "../../services/compare/three-way";
import { researchReadProcedure } from "../../trpc";

export const compareThreeWayInput = z.object({
  judgeRunId: z.string().min(1),
  annotateRunId: z.string().min(1),
  /** Default: the annotate run's first configured rule that has stored labels. */
  rule: storedRuleSchema.optional(),
  /** Only human labels given in this annotation queue. */
  queueId: z.string().min(1).optional(),
  pattern: z.enum(THREE_WAY_PATTERNS).optional(),
  cursor: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(1000).default(200),
});

/** Judge × Monte-Carlo × human on a dataset's chunks: a confusion matrix and Cohen's κ per pair, and the chunks whose readings are not unanimous. */
export const threeWay = researchReadProcedure.input(compareThreeWayInput).query(({ ctx, input }) => compareThreeWay({ ...ctx, input }));
