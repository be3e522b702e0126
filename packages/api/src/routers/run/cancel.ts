import { requestRunCancel } from "@stepwiser/jobs";
import { z } from "zod";
import { researcherProcedure } from "../../trpc";

export const cancelRunInput = z.object({ id: z.string().min(1) });

export const cancel = researcherProcedure.input(cancelRunInput).mutation(async ({ ctx, input }) => {
  await requestRunCancel(ctx.db, input.id, ctx.user.id);
  return { ok: true };
});
