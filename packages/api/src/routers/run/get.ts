import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { researchReadProcedure } from "../../trpc";
import { runSummarySelect, toRunSummary } from "./summary";

export const getRunInput = z.object({ id: z.string().min(1) });

export const get = researchReadProcedure.input(getRunInput).query(async ({ ctx, input }) => {
  const run = await ctx.db.run.findUnique({ where: { id: input.id }, select: { ...runSummarySelect, config: true, summary: true } });
  if (!run) throw new TRPCError({ code: "NOT_FOUND", message: `run ${input.id} does not exist` });
  return { ...toRunSummary(run), config: run.config, summary: run.summary };
});
