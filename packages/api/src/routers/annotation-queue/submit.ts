import { HUMAN_RATINGS, type HumanRating } from "@stepwiser/core";
import { z } from "zod";
import { submitAssignment } from "../../services/annotation-queue/submit";
import { queueMemberProcedure } from "../../trpc";

const rating = z.union(HUMAN_RATINGS.map((r) => z.literal(r)) as [z.ZodLiteral<HumanRating>, z.ZodLiteral<HumanRating>, z.ZodLiteral<HumanRating>]).nullable();

export const chunkLabelInput = z.object({
  chunkId: z.string().min(1),
  /** -1 wrong, 0 neutral, +1 right; null = unrated (first_error scheme, where ratings follow the pick). */
  rating,
  flagged: z.boolean().default(false),
  note: z.string().max(2000).optional(),
});

export const submitInput = z.object({
  assignmentId: z.string().min(1),
  labels: z.array(chunkLabelInput).max(2000),
  /** first_error scheme: the first wrong chunk, -1 for none. */
  firstErrorIndex: z.number().int().min(-1).optional(),
});

/**
 * Stores the caller's labels for their leased item, appended to its history;
 * CONFLICT when it is no longer leased to them or its slot was taken after the
 * lease ran out.
 */
export const submit = queueMemberProcedure("annotationQueues.annotate")
  .input(submitInput)
  .mutation(({ ctx, input }) => submitAssignment({ ...ctx, input }));
