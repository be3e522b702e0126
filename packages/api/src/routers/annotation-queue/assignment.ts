import { z } from "zod";
import { queueAnnotateProcedure } from "../../trpc";
import { loadAssignmentView } from "./assignment-view";
import { assertAssignmentQueueVisible } from "./membership";

export const assignmentInput = z.object({ assignmentId: z.string().min(1) });

/**
 * One of the caller's own assignments (leased, submitted or skipped); another annotator's is FORBIDDEN,
 * and one in a queue the caller is no longer a member of is NOT_FOUND.
 */
export const assignment = queueAnnotateProcedure.input(assignmentInput).query(async ({ ctx, input }) => {
  await assertAssignmentQueueVisible(ctx.db, ctx.user, input.assignmentId);
  return loadAssignmentView(ctx.db, input.assignmentId, ctx.user.id);
});
