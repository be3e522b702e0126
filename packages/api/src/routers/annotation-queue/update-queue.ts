import { z } from "zod";
import { updateQueueSettings } from "../../services/annotation-queue/update-queue";
import { queueMemberProcedure } from "../../trpc";

export const updateQueueInput = z.object({
  queueId: z.string().min(1),
  name: z.string().trim().min(1).max(200).optional(),
  instructions: z.string().max(20_000).optional(),
  annotatorsPerItem: z.number().int().min(1).max(10).optional(),
  leaseSeconds: z.number().int().min(1).max(86_400).optional(),
  blind: z.boolean().optional(),
  /** Required when blind goes from true to false: why (kept in the audit log). */
  blindOffReason: z.string().max(2000).optional(),
  /** true archives the queue (no new leases), false brings it back. */
  archived: z.boolean().optional(),
});

/** Changes a queue's settings (items and selection stay as created); audits the fields that changed. */
export const updateQueue = queueMemberProcedure("annotationQueues.manage")
  .input(updateQueueInput)
  .mutation(({ ctx, input }) => updateQueueSettings({ ...ctx, input }));
