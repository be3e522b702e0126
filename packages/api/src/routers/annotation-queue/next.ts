import { z } from "zod";
import { claimNextItem } from "../../services/annotation-queue/next";
import { queueMemberProcedure } from "../../trpc";

export const nextInput = z.object({ queueId: z.string().min(1) });

/** The caller's current item in a queue: the lease they hold, else a newly leased one; null when nothing is left or the queue is archived. */
export const next = queueMemberProcedure("annotationQueues.annotate")
  .input(nextInput)
  .mutation(({ ctx, input }) => claimNextItem({ ...ctx, input }));
