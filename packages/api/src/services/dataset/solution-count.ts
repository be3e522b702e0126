import type { ReadServiceArgs } from "../args";

/** How many solutions a dataset holds now (0 for a dataset that holds none, or no longer exists). */
export async function countDatasetSolutions({ db, input }: ReadServiceArgs<{ datasetId: string }>): Promise<number> {
  return db.solution.count({ where: { datasetId: input.datasetId } });
}
