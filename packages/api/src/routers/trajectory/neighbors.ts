import { Prisma } from "@stepwiser/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { viewerProcedure } from "../../trpc";
import { filteredSolutionsFrom, sortKey, statJoins, trajectoryFilterSchema } from "./filters";

export const trajectoryNeighborsInput = trajectoryFilterSchema.and(z.object({ id: z.string().min(1) }));

/**
 * The solutions just before and after one in a filtered, sorted list: keyset
 * lookups on (sort key, creation time, id), so stepping through a 100k list
 * costs two index probes, not a sort of the whole list.
 */
export const neighbors = viewerProcedure.input(trajectoryNeighborsInput).query(async ({ ctx, input }) => {
  const key = sortKey(input);
  // Keys travel as text and are cast back, so no timestamp or float is reinterpreted on the way.
  const current = await ctx.db.$queryRaw<{ key: string | null; createdAt: string }[]>(Prisma.sql`
    SELECT ${key ? Prisma.sql`(${key.expression})::text` : Prisma.sql`NULL`} AS key, t."createdAt"::text AS "createdAt"
    FROM "Trajectory" t ${statJoins(input)}
    WHERE t.id = ${input.id} AND t."datasetId" = ${input.datasetId}`);
  const here = current[0];
  if (!here) throw new TRPCError({ code: "NOT_FOUND", message: `trajectory ${input.id} is not in dataset ${input.datasetId}` });
  const from = filteredSolutionsFrom(input);
  const step = async (forward: boolean) => {
    // Forward in an ascending list means greater keys; in a descending one, smaller.
    const greater = forward === (input.order === "asc");
    const comparison = greater ? Prisma.sql`>` : Prisma.sql`<`;
    const direction = greater ? Prisma.sql`ASC` : Prisma.sql`DESC`;
    const position = Prisma.sql`${here.createdAt}::timestamp(3), ${input.id}`;
    const rows = await ctx.db.$queryRaw<{ id: string; externalId: string }[]>(Prisma.sql`
      SELECT t.id, t."externalId" ${from}
        AND ${key ? Prisma.sql`(${key.expression}, t."createdAt", t.id) ${comparison} (${here.key}::${key.type}, ${position})` : Prisma.sql`(t."createdAt", t.id) ${comparison} (${position})`}
      ORDER BY ${key ? Prisma.sql`${key.expression} ${direction},` : Prisma.empty} t."createdAt" ${direction}, t.id ${direction}
      LIMIT 1`);
    return rows[0] ?? null;
  };
  const [previous, next] = await Promise.all([step(false), step(true)]);
  return { previous, next };
});
