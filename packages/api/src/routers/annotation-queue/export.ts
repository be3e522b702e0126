import { z } from "zod";
import { exportLabelLines } from "../../services/annotation-queue/export";
import { queueMemberProcedure } from "../../trpc";

export const exportLabelsInput = z.object({ queueId: z.string().min(1) });

/** A queue's label rows as JSONL lines, for queues up to 50,000 rows; larger ones stream through the web app's download route. */
export const exportLabels = queueMemberProcedure("annotationQueues.manage")
  .input(exportLabelsInput)
  .query(({ ctx, input }) => exportLabelLines({ ...ctx, input }));
