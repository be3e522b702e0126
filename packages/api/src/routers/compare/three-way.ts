import { THREE_WAY_PATTERNS, threeWayAgreement } from "@stepwiser/core";
import { z } from "zod";
import { researchReadProcedure } from "../../trpc";
import { loadChunkReadings, storedRuleSchema } from "./readings";

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

/**
 * Judge × Monte-Carlo × human on the chunks of one dataset: a confusion
 * matrix and Cohen's κ per pair (on the chunks having both readings, the human
 * rating binarised with neutral = Positive), and the chunks whose three
 * readings are not unanimous, with how they split. A disputed human label
 * (annotators disagree, no adjudication yet) counts as no human reading.
 */
export const threeWay = researchReadProcedure.input(compareThreeWayInput).query(async ({ ctx, input }) => {
  const readings = await loadChunkReadings(ctx.db, input);
  const agreement = threeWayAgreement(readings.chunks);
  const matching = input.pattern ? agreement.disagreements.filter((c) => c.pattern === input.pattern) : agreement.disagreements;
  const page = matching.slice(input.cursor, input.cursor + input.limit);
  const next = input.cursor + page.length;
  return {
    judgeRun: readings.judgeRun,
    annotateRunId: input.annotateRunId,
    queue: readings.queue,
    rule: readings.rule,
    availableRules: readings.availableRules,
    judgeVsMc: agreement.judgeVsMc,
    judgeVsHuman: agreement.judgeVsHuman,
    mcVsHuman: agreement.mcVsHuman,
    chunks: readings.chunks.length,
    humanRated: readings.chunks.filter((c) => c.human !== null).length,
    disputed: readings.disputed,
    complete: agreement.complete,
    unanimous: agreement.unanimous,
    patterns: agreement.patterns,
    list: { items: page, total: matching.length, nextCursor: next < matching.length ? next : null },
  };
});
