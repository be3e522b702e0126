import { z } from "zod";
import { researchReadProcedure } from "../../trpc";
import { runSummarySelect, toRunSummary } from "./summary";

export const listRunsInput = z.object({
  datasetId: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

export const list = researchReadProcedure.input(listRunsInput).query(async ({ ctx, input }) => {
  const runs = await ctx.db.run.findMany({
    where: input.datasetId ? { datasetId: input.datasetId } : {},
    orderBy: { createdAt: "desc" },
    take: input.limit,
    select: runSummarySelect,
  });
  return runs.map(toRunSummary);
});
