import { resumeRun } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const resumeRunInput = z.object({ id: z.string().min(1) });

export const resume = researchManageProcedure.input(resumeRunInput).mutation(async ({ ctx, input }) => {
  await resumeRun(ctx.db, await ctx.getQueue(), input.id, ctx.user.id);
  return { ok: true };
});
