import { exportSpecSchema, submitExport } from "@stepwiser/jobs";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const startExportInput = z.object({ spec: exportSpecSchema });

/** Queues an export run (its source and options are checked first); its files appear in `exports.list` once the worker has written them. */
export const start = researchManageProcedure.input(startExportInput).mutation(async ({ ctx, input }) => {
  const run = await submitExport(ctx.db, await ctx.getQueue(), { spec: input.spec, createdById: ctx.user.id });
  return { runId: run.id };
});
