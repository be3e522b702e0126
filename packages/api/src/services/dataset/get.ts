import { NotFoundError } from "@stepwiser/core";
import type { ServiceArgs } from "../args";

/** One dataset with its solution counts per subset and generator, and how many solutions the source marks with an error. */
export async function getDataset({ db, input }: ServiceArgs<{ id: string }>) {
  const dataset = await db.dataset.findUnique({
    where: { id: input.id },
    select: { id: true, name: true, source: true, license: true, version: true, status: true, createdAt: true, importRunId: true },
  });
  if (!dataset) throw new NotFoundError(`dataset ${input.id} does not exist`);
  const [subsets, generators, errorCounts] = await Promise.all([
    db.solution.groupBy({ by: ["subset"], where: { datasetId: input.id }, _count: { _all: true }, orderBy: { subset: "asc" } }),
    db.solution.groupBy({ by: ["generator"], where: { datasetId: input.id }, _count: { _all: true }, orderBy: { generator: "asc" } }),
    db.solution.count({ where: { datasetId: input.id, sourceFirstErrorIndex: { gte: 0 } } }),
  ]);
  const total = subsets.reduce((sum, s) => sum + s._count._all, 0);
  return {
    ...dataset,
    solutionCount: total,
    withErrorCount: errorCounts,
    subsets: subsets.map((s) => ({ name: s.subset, count: s._count._all })),
    generators: generators.map((g) => ({ name: g.generator, count: g._count._all })),
  };
}
