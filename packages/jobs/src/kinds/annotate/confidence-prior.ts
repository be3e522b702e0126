import { fitMixturePrior, InputError, type FittedMixturePrior } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";

/**
 * Fits the mixture prior of label confidence (point masses at Q = 0 and 1 plus
 * a Beta part) to the rollout counts of every prefix an annotate run sampled:
 * a pilot run's Q-values describe the population the next run's labels come
 * from. The finished solutions' own outcomes are not rollouts and are left out.
 */
export async function fitConfidencePriorFromRun(db: Db, runId: string, field = "runId"): Promise<FittedMixturePrior & { runId: string }> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { kind: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field });
  if (run.kind !== "annotate") throw new InputError(`run ${runId} is a ${run.kind} run; a prior is fitted to an annotate run's rollout counts`, { field });
  const rows = await db.$queryRaw<{ correct: number; rollouts: number; n: bigint }[]>`
    SELECT "correctCount" AS correct, "rolloutCount" AS rollouts, count(*) AS n
      FROM "ChunkValue" WHERE "runId" = ${runId} AND "rolloutCount" > 0
     GROUP BY 1, 2`;
  if (rows.length === 0) throw new InputError(`run ${runId} has no sampled prefix yet: fit the prior to a run that has stored rollout counts`, { field });
  const counts = rows.flatMap((r) => Array.from({ length: Number(r.n) }, () => ({ correct: r.correct, rollouts: r.rollouts })));
  return { ...fitMixturePrior(counts), runId };
}
