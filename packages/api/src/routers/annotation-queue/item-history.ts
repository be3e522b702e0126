import { z } from "zod";
import { loadItemHistory } from "../../services/annotation-queue/item-history";
import { queueMemberProcedure } from "../../trpc";

export const itemHistoryInput = z.object({ itemId: z.string().min(1) });

/** Everything that happened to one item: who held it when, every label row ever written (oldest first), and the final labels. */
export const itemHistory = queueMemberProcedure("annotationQueues.manage")
  .input(itemHistoryInput)
  .query(({ ctx, input }) => loadItemHistory({ ...ctx, input }));
