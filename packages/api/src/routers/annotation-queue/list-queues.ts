import { z } from "zod";
import { listVisibleQueues } from "../../services/annotation-queue/list-queues";
import { queueViewProcedure } from "../../trpc";

export const listQueuesInput = z.object({ datasetId: z.string().min(1).optional() });

/** Every annotation queue the caller may see (an annotator: their member queues), archived ones too, newest first, with progress. */
export const listQueues = queueViewProcedure.input(listQueuesInput).query(({ ctx, input }) => listVisibleQueues({ ...ctx, input }));
