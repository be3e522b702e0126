import { z } from "zod";
import { adjudicateItem } from "../../services/annotation-queue/adjudicate";
import { queueMemberProcedure } from "../../trpc";
import { chunkLabelInput } from "./submit";

export const adjudicateInput = z.object({
  itemId: z.string().min(1),
  /** Rating scheme: a rating for every chunk. First-error scheme: notes only (ratings follow the pick). */
  labels: z.array(chunkLabelInput.omit({ flagged: true })).max(2000).optional(),
  firstErrorIndex: z.number().int().min(-1).optional(),
});

/** The final word on an item: one "adjudication" row per chunk, the item marked adjudicated, the final labels audited. */
export const adjudicate = queueMemberProcedure("annotationQueues.manage")
  .input(adjudicateInput)
  .mutation(({ ctx, input }) => adjudicateItem({ ...ctx, input }));
