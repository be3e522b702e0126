import type { Prisma } from "@stepwiser/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { researchReadProcedure } from "../../trpc";

/** A solution with its problem and every segmentation's chunks: what both the plain view and the inspector show. */
export const trajectoryDetailSelect = {
  id: true,
  externalId: true,
  subset: true,
  generator: true,
  text: true,
  finalAnswer: true,
  finalAnswerCorrect: true,
  sourceFirstErrorIndex: true,
  dataset: { select: { id: true, name: true, source: true } },
  problem: { select: { id: true, text: true, referenceAnswer: true } },
  segmentations: {
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      method: true,
      chunks: {
        orderBy: { index: "asc" },
        select: { id: true, index: true, text: true, startOffset: true, endOffset: true },
      },
    },
  },
} satisfies Prisma.TrajectorySelect;

export const getTrajectoryInput = z.object({ id: z.string().min(1) });

export const get = researchReadProcedure.input(getTrajectoryInput).query(async ({ ctx, input }) => {
  const trajectory = await ctx.db.trajectory.findUnique({
    where: { id: input.id },
    select: trajectoryDetailSelect,
  });
  if (!trajectory) throw new TRPCError({ code: "NOT_FOUND", message: `trajectory ${input.id} does not exist` });
  return trajectory;
});
