import { z } from "zod";
import { undoLastSubmission } from "../../services/annotation-queue/undo";
import { queueMemberProcedure } from "../../trpc";

export const undoInput = z.object({ queueId: z.string().min(1) });

/** Takes back the caller's latest submission in a queue and leases it to them again, with their labels to edit; null when there is none. */
export const undo = queueMemberProcedure("annotationQueues.annotate")
  .input(undoInput)
  .mutation(({ ctx, input }) => undoLastSubmission({ ...ctx, input }));
