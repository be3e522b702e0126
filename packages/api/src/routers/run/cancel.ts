import { requestRunCancel } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const cancelRunInput = z.object({ id: z.string().min(1) });

export const cancel = researchManageProcedure.input(cancelRunInput).mutation(async ({ ctx, input }) => {
  await requestRunCancel(ctx.db, input.id, ctx.user.id);
  return { ok: true };
});
