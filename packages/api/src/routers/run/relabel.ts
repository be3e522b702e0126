import { labelRuleSchema } from "@stepwiser/core";
import { relabelAnnotateRun } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";
import { recordAudit } from "@stepwiser/db";

export const relabelRunInput = z.object({ id: z.string().min(1), rules: z.array(labelRuleSchema).min(1).max(32) });

/** New label parameters for a finished annotate run, from its stored Q-values: no request is sent. */
export const relabel = researchManageProcedure.input(relabelRunInput).mutation(async ({ ctx, input }) => {
  const result = await relabelAnnotateRun(ctx.db, input.id, input.rules);
  await recordAudit(ctx.db, ctx.user.id, { action: "run.relabelled", entityType: "Run", entityId: input.id, after: { rules: result.rules } });
  return result;
});
