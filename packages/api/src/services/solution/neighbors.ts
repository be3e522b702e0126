import { NotFoundError } from "@stepwiser/core";
import { Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { keysetCondition, listOrder, plannedSolutionsFrom, sortValuesSelect, type SolutionFilter } from "./filters";

/**
 * The solutions just before and after one in a filtered, sorted list: keyset
 * lookups on the list's own total order, so stepping through a 100k list costs
 * two index range scans, not a sort of the whole list. A solution outside the
 * list (filtered out, or not annotated in a list sorted by Q) has no neighbours.
 */
export async function solutionNeighbors({ db, input }: ServiceArgs<SolutionFilter & { id: string }>) {
  const from = await plannedSolutionsFrom(db, input);
  // Values travel as text and are cast back, so no timestamp or float is reinterpreted on the way.
  const current = await db.$queryRaw<{ sortValues: string[] }[]>(Prisma.sql`SELECT ${sortValuesSelect(input)} ${from} AND t.id = ${input.id}`);
  const here = current[0];
  if (!here) {
    const exists = await db.solution.count({ where: { id: input.id, datasetId: input.datasetId } });
    if (!exists) throw new NotFoundError(`solution ${input.id} is not in dataset ${input.datasetId}`);
    // Outside the list (its filters changed, or it lacks the sort column): no place to step from.
    return { inList: false, previous: null, next: null };
  }
  const step = async (forward: boolean) => {
    const rows = await db.$queryRaw<{ id: string; externalId: string }[]>(Prisma.sql`
      SELECT t.id, t."externalId" ${from} AND ${keysetCondition(input, here.sortValues, forward)}
      ${listOrder(input, !forward)}
      LIMIT 1`);
    return rows[0] ?? null;
  };
  const [previous, next] = await Promise.all([step(false), step(true)]);
  return { inList: true, previous, next };
}
