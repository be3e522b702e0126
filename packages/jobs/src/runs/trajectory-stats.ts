import type { Monotonicity, SolutionLabelStats } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";

export interface TrajectoryRunStatInput extends SolutionLabelStats {
  runId: string;
  trajectoryId: string;
  datasetId: string;
  chunkCount: number;
  qMin: number | null;
  /** Annotate with strategy first-error: whether its labels rest on the monotonicity it assumes. */
  monotonicity?: Monotonicity | null;
}

/** Stores (or, for a redone unit, replaces) what a run found on one solution, for list filters. */
export async function writeTrajectoryRunStat(db: Db | Prisma.TransactionClient, stat: TrajectoryRunStatInput): Promise<void> {
  const { runId, trajectoryId, ...values } = stat;
  await db.trajectoryRunStat.upsert({
    where: { runId_trajectoryId: { runId, trajectoryId } },
    create: stat,
    update: values,
  });
}
