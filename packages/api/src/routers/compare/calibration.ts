import { z } from "zod";
import { compareCalibration } from "../../services/compare/calibration";
import { storedRuleSchema } from "../../services/compare/readings";
import { researchReadProcedure } from "../../trpc";

export const compareCalibrationInput = z.object({
  judgeRunId: z.string().min(1),
  /** The label the judge's vote share is read against: an annotate run's Monte-Carlo label, or the final human rating. */
  reference: z.enum(["mc", "human"]),
  annotateRunId: z.string().min(1).optional(),
  rule: storedRuleSchema.optional(),
  queueId: z.string().min(1).optional(),
  bins: z.number().int().min(2).max(50).default(10),
});

/** Reliability of a judge's share of Positive votes against Monte-Carlo labels or final human ratings, in equal-width bins, with the expected calibration error. */
export const calibration = researchReadProcedure.input(compareCalibrationInput).query(({ ctx, input }) => compareCalibration({ ...ctx, input }));
