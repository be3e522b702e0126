import { z } from "zod";
import { loadAssignmentView } from "../../services/annotation-queue/assignment-view";
import { queueMemberProcedure } from "../../trpc";

export const assignmentInput = z.object({ assignmentId: z.string().min(1) });

/**
 * One of the caller's own assignments (leased, submitted or skipped); another annotator's is FORBIDDEN,
 * and one in a queue the caller is no longer a member of is NOT_FOUND.
 */
export const assignment = queueMemberProcedure("annotationQueues.annotate")
  .input(assignmentInput)
  .query(({ ctx, input }) => loadAssignmentView(ctx.db, input.assignmentId, ctx.user.id));
