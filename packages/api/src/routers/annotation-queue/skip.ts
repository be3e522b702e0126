import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { queueAnnotateProcedure } from "../../trpc";
import { assertAssignmentQueueVisible } from "./membership";

export const skipInput = z.object({ assignmentId: z.string().min(1) });

/** Gives a leased item back without labels: its slot frees for others, and it is never offered to the caller again. */
export const skip = queueAnnotateProcedure.input(skipInput).mutation(async ({ ctx, input }) => {
  await assertAssignmentQueueVisible(ctx.db, ctx.user, input.assignmentId);
  const skipped = await ctx.db.annotationAssignment.updateMany({
    where: { id: input.assignmentId, annotatorId: ctx.user.id, status: "leased" },
    data: { status: "skipped" },
  });
  if (skipped.count === 1) return { ok: true as const };
  const found = await ctx.db.annotationAssignment.findUnique({ where: { id: input.assignmentId }, select: { annotatorId: true, status: true } });
  if (!found) throw new TRPCError({ code: "NOT_FOUND", message: `assignment ${input.assignmentId} does not exist` });
  if (found.annotatorId !== ctx.user.id) throw new TRPCError({ code: "FORBIDDEN", message: "this assignment belongs to another annotator" });
  // A repeated skip (double click, retry) has nothing left to do.
  if (found.status === "skipped") return { ok: true as const };
  throw new TRPCError({ code: "CONFLICT", message: `this assignment was already ${found.status}; only a leased item can be skipped` });
});
