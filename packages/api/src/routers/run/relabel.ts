import { labelRuleSchema } from "@stepwiser/core";
import { relabelAnnotateRun } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const relabelRunInput = z.object({ id: z.string().min(1), rules: z.array(labelRuleSchema).min(1).max(32) });

/** New label parameters for a finished annotate run, from its stored Q-values: no request is sent. */
export const relabel = researchManageProcedure.input(relabelRunInput).mutation(async ({ ctx, input }) => {
  const result = await relabelAnnotateRun(ctx.db, input.id, input.rules);
  await ctx.db.auditLog.create({ data: { actorId: ctx.user.id, action: "run.relabelled", entityType: "Run", entityId: input.id, after: { rules: result.rules } } });
  return result;
});
