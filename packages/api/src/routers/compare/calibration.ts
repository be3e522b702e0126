import { judgeCalibration, ratingToLabel } from "@stepwiser/core";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { researchReadProcedure } from "../../trpc";
import { loadChunkReadings, storedRuleSchema } from "./readings";

export const compareCalibrationInput = z.object({
  judgeRunId: z.string().min(1),
  /** The label the judge's vote share is read against: an annotate run's Monte-Carlo label, or the final human rating. */
  reference: z.enum(["mc", "human"]),
  annotateRunId: z.string().min(1).optional(),
  rule: storedRuleSchema.optional(),
  queueId: z.string().min(1).optional(),
  bins: z.number().int().min(2).max(50).default(10),
});

/**
 * Reliability of a judge's share of Positive votes as the probability that the
 * reference calls the chunk Positive: equal-width bins and the expected
 * calibration error. Chunks without a parsed vote or a reference are skipped.
 * With K = 1 every share is 0 or 1, so only the two end bins fill.
 */
export const calibration = researchReadProcedure.input(compareCalibrationInput).query(async ({ ctx, input }) => {
  if (input.reference === "mc" && !input.annotateRunId) {
    throw new TRPCError({ code: "BAD_REQUEST", message: "calibration against Monte-Carlo labels needs an annotate run" });
  }
  const readings = await loadChunkReadings(ctx.db, { judgeRunId: input.judgeRunId, annotateRunId: input.reference === "mc" ? input.annotateRunId : undefined, rule: input.rule, queueId: input.queueId });
  const judged = readings.chunks.filter((c) => c.judge !== null);
  const report = judgeCalibration(
    judged.map((c) => ({ judgeShare: c.judgeShare, reference: input.reference === "mc" ? c.mc : c.human === null ? null : ratingToLabel(c.human) })),
    { bins: input.bins },
  );
  return { judgeRun: readings.judgeRun, reference: input.reference, rule: input.reference === "mc" ? readings.rule : null, queue: readings.queue, ...report };
});
