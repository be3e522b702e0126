import { z } from "zod";
import { addQueueMembers, listAnnotatorCandidates, removeQueueMember } from "../../services/annotation-queue/members";
import { queueManageProcedure, queueMemberProcedure } from "../../trpc";

export const addMembersInput = z.object({
  queueId: z.string().min(1),
  userIds: z.array(z.string().min(1)).min(1).max(500),
});

/** Lets annotators work a queue; adding someone already a member changes nothing. */
export const addMembers = queueMemberProcedure("annotationQueues.manage")
  .input(addMembersInput)
  .mutation(({ ctx, input }) => addQueueMembers({ ...ctx, input }));

export const removeMemberInput = z.object({ queueId: z.string().min(1), userId: z.string().min(1) });

/** Takes a queue away from an annotator: their unexpired leases in it end now, their submitted labels stay. */
export const removeMember = queueMemberProcedure("annotationQueues.manage")
  .input(removeMemberInput)
  .mutation(({ ctx, input }) => removeQueueMember({ ...ctx, input }));

/** Accounts a queue can be given to: everyone holding the annotator role, for the members picker. */
export const annotatorCandidates = queueManageProcedure.input(z.object({}).default({})).query(({ ctx }) => listAnnotatorCandidates(ctx));
