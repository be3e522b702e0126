import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { researchReadProcedure } from "../../trpc";

export const getDatasetInput = z.object({ id: z.string().min(1) });

export const get = researchReadProcedure.input(getDatasetInput).query(async ({ ctx, input }) => {
  const dataset = await ctx.db.dataset.findUnique({
    where: { id: input.id },
    select: { id: true, name: true, source: true, license: true, version: true, status: true, createdAt: true, importRunId: true },
  });
  if (!dataset) throw new TRPCError({ code: "NOT_FOUND", message: `dataset ${input.id} does not exist` });
  const [subsets, generators, errorCounts] = await Promise.all([
    ctx.db.trajectory.groupBy({ by: ["subset"], where: { datasetId: input.id }, _count: { _all: true }, orderBy: { subset: "asc" } }),
    ctx.db.trajectory.groupBy({ by: ["generator"], where: { datasetId: input.id }, _count: { _all: true }, orderBy: { generator: "asc" } }),
    ctx.db.trajectory.count({ where: { datasetId: input.id, sourceFirstErrorIndex: { gte: 0 } } }),
  ]);
  const total = subsets.reduce((sum, s) => sum + s._count._all, 0);
  return {
    ...dataset,
    trajectoryCount: total,
    withErrorCount: errorCounts,
    subsets: subsets.map((s) => ({ name: s.subset, count: s._count._all })),
    generators: generators.map((g) => ({ name: g.generator, count: g._count._all })),
  };
});
