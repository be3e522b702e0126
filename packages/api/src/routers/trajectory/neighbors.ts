import { Prisma } from "@stepwiser/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { viewerProcedure } from "../../trpc";
import { filteredSolutionsFrom, keysetCondition, listOrder, sortValuesSelect, statJoins, trajectoryFilterSchema } from "./filters";

export const trajectoryNeighborsInput = trajectoryFilterSchema.and(z.object({ id: z.string().min(1) }));

/**
 * The solutions just before and after one in a filtered, sorted list: keyset
 * lookups on the list's own total order, so stepping through a 100k list costs
 * two index range scans, not a sort of the whole list. A solution outside the
 * list (e.g. not annotated, in a list sorted by Q) has no neighbours.
 */
export const neighbors = viewerProcedure.input(trajectoryNeighborsInput).query(async ({ ctx, input }) => {
  // Values travel as text and are cast back, so no timestamp or float is reinterpreted on the way.
  const current = await ctx.db.$queryRaw<{ sortValues: (string | null)[] }[]>(Prisma.sql`
    SELECT ${sortValuesSelect(input)} FROM "Trajectory" t ${statJoins(input)}
    WHERE t.id = ${input.id} AND t."datasetId" = ${input.datasetId}`);
  const here = current[0];
  if (!here) throw new TRPCError({ code: "NOT_FOUND", message: `trajectory ${input.id} is not in dataset ${input.datasetId}` });
  if (here.sortValues.some((v) => v === null)) return { previous: null, next: null };
  const values = here.sortValues as string[];
  const from = filteredSolutionsFrom(input);
  const step = async (forward: boolean) => {
    const rows = await ctx.db.$queryRaw<{ id: string; externalId: string }[]>(Prisma.sql`
      SELECT t.id, t."externalId" ${from} AND ${keysetCondition(input, values, forward)}
      ${listOrder(input, !forward)}
      LIMIT 1`);
    return rows[0] ?? null;
  };
  const [previous, next] = await Promise.all([step(false), step(true)]);
  return { previous, next };
});
