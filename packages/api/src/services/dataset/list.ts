import type { ServiceContext } from "../args";

/** Every dataset, newest first, with its solution and problem counts. */
export async function listDatasets({ db }: ServiceContext) {
  const datasets = await db.dataset.findMany({
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
      _count: { select: { solutions: true, problems: true } },
    },
  });
  return datasets.map(({ _count, ...d }) => ({ ...d, solutionCount: _count.solutions, problemCount: _count.problems }));
}
