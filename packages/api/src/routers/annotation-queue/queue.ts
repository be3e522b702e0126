import { z } from "zod";
import { queueDashboard } from "../../services/annotation-queue/queue";
import { queueMemberProcedure } from "../../trpc";

export const queueInput = z.object({ queueId: z.string().min(1) });

/**
 * One queue's settings and who has done what: the queue's dashboard. An
 * annotator sees it only for a queue they are a member of, and only their own
 * progress: not who else works it, nor the runs and selection behind it.
 */
export const queue = queueMemberProcedure("annotationQueues.view")
  .input(queueInput)
  .query(({ ctx, input }) => queueDashboard({ ...ctx, input }));
