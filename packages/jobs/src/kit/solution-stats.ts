import type { Monotonicity, SolutionLabelStats } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";

export interface SolutionRunStatInput extends SolutionLabelStats {
  runId: string;
  solutionId: string;
  datasetId: string;
  chunkCount: number;
  qMin: number | null;
  /** Annotate with strategy first-error: whether its labels rest on the monotonicity it assumes. */
  monotonicity?: Monotonicity | null;
}

/** Stores (or, for a redone unit, replaces) what a run found on one solution, for list filters. */
export async function writeSolutionRunStat(db: Db | Prisma.TransactionClient, stat: SolutionRunStatInput): Promise<void> {
  const { runId, solutionId, ...values } = stat;
  await db.solutionRunStat.upsert({
    where: { runId_solutionId: { runId, solutionId } },
    create: stat,
    update: values,
  });
}
