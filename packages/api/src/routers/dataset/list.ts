import { researchReadProcedure } from "../../trpc";

export const list = researchReadProcedure.query(async ({ ctx }) => {
  const datasets = await ctx.db.dataset.findMany({
    orderBy: { createdAt: "desc" },
    select: {
      id: true,
      name: true,
      source: true,
      license: true,
      version: true,
      status: true,
      createdAt: true,
      importRunId: true,
      _count: { select: { trajectories: true, problems: true } },
    },
  });
  return datasets.map(({ _count, ...d }) => ({ ...d, trajectoryCount: _count.trajectories, problemCount: _count.problems }));
});
