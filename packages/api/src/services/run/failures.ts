import type { ServiceArgs } from "../args";

/**
 * Units that failed, or are waiting for a retry after an error, with the
 * solution they were about when the unit key names a segmentation or a
 * solution, so an error can be opened in its context.
 */
export async function runFailures({ db, input }: ServiceArgs<{ id: string; limit: number }>) {
  const where = { runId: input.id, error: { not: null } };
  const [total, units] = await Promise.all([
    db.runUnit.count({ where }),
    db.runUnit.findMany({
      where,
      orderBy: [{ status: "desc" }, { position: "asc" }],
      take: input.limit,
      select: { key: true, status: true, attempts: true, error: true, updatedAt: true },
    }),
  ]);
  const keys = units.map((u) => u.key);
  const [segmentations, solutions] = await Promise.all([
    db.segmentation.findMany({ where: { id: { in: keys } }, select: { id: true, solution: { select: { id: true, externalId: true } } } }),
    db.solution.findMany({ where: { id: { in: keys } }, select: { id: true, externalId: true } }),
  ]);
  const solutionOf = new Map<string, { id: string; externalId: string }>([
    ...segmentations.map((s) => [s.id, s.solution] as const),
    ...solutions.map((t) => [t.id, t] as const),
  ]);
  return { total, units: units.map((unit) => ({ ...unit, solution: solutionOf.get(unit.key) ?? null })) };
}
