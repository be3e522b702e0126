import { z } from "zod";
import { researchReadProcedure } from "../../trpc";

export const runFailuresInput = z.object({ id: z.string().min(1), limit: z.number().int().min(1).max(200).default(50) });

/**
 * Units that failed, or are waiting for a retry after an error, with the
 * solution they were about when the unit key names a segmentation or a
 * trajectory, so an error can be opened in its context.
 */
export const failures = researchReadProcedure.input(runFailuresInput).query(async ({ ctx, input }) => {
  const where = { runId: input.id, error: { not: null } };
  const [total, units] = await Promise.all([
    ctx.db.runUnit.count({ where }),
    ctx.db.runUnit.findMany({
      where,
      orderBy: [{ status: "desc" }, { position: "asc" }],
      take: input.limit,
      select: { key: true, status: true, attempts: true, error: true, updatedAt: true },
    }),
  ]);
  const keys = units.map((u) => u.key);
  const [segmentations, trajectories] = await Promise.all([
    ctx.db.segmentation.findMany({ where: { id: { in: keys } }, select: { id: true, trajectory: { select: { id: true, externalId: true } } } }),
    ctx.db.trajectory.findMany({ where: { id: { in: keys } }, select: { id: true, externalId: true } }),
  ]);
  const solutionOf = new Map<string, { id: string; externalId: string }>([
    ...segmentations.map((s) => [s.id, s.trajectory] as const),
    ...trajectories.map((t) => [t.id, t] as const),
  ]);
  return { total, units: units.map((unit) => ({ ...unit, trajectory: solutionOf.get(unit.key) ?? null })) };
});
