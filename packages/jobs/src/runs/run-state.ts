import type { Db, Prisma, RunStatus } from "@stepwiser/db";

export const TERMINAL_STATUSES: readonly RunStatus[] = ["completed", "completed_with_failures", "failed", "cancelled"];

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Marks a run as picked up by a worker; counts attempts so crash recoveries are visible. */
export async function markRunStarted(db: Db, runId: string) {
  return db.run.update({
    where: { id: runId },
    data: { status: "running", startedAt: new Date(), attempts: { increment: 1 }, error: null },
  });
}

export async function markRunFinished(
  db: Db | Prisma.TransactionClient,
  runId: string,
  status: Extract<RunStatus, "completed" | "completed_with_failures" | "failed" | "cancelled">,
  error?: string,
) {
  return db.run.update({ where: { id: runId }, data: { status, finishedAt: new Date(), error: error ?? null } });
}
