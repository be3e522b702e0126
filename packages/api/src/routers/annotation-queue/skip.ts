import { z } from "zod";
import { skipAssignment } from "../../services/annotation-queue/skip";
import { queueMemberProcedure } from "../../trpc";

export const skipInput = z.object({ assignmentId: z.string().min(1) });

/** Gives a leased item back without labels: its slot frees for others, and it is never offered to the caller again. */
export const skip = queueMemberProcedure("annotationQueues.annotate")
  .input(skipInput)
  .mutation(({ ctx, input }) => skipAssignment({ ...ctx, input }));
