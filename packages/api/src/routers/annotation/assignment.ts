import { z } from "zod";
import { annotatorProcedure } from "../../trpc";
import { loadAssignmentView } from "./assignment-view";

export const assignmentInput = z.object({ assignmentId: z.string().min(1) });

/** One of the caller's own assignments (leased, submitted or skipped); another annotator's is FORBIDDEN. */
export const assignment = annotatorProcedure.input(assignmentInput).query(({ ctx, input }) => loadAssignmentView(ctx.db, input.assignmentId, ctx.user.id));
