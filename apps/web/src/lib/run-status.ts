/** Statuses of a run that is still going (queued or running): its numbers change, so lists showing it poll. */
const ACTIVE_STATUSES: ReadonlySet<string> = new Set(["queued", "running"]);

export function isRunActive(status: string): boolean {
  return ACTIVE_STATUSES.has(status);
}

/** Whether any run of a list is still going (a list's poll interval reads it). */
export function anyRunActive(runs: ReadonlyArray<{ status: string }> | undefined): boolean {
  return runs?.some((run) => isRunActive(run.status)) ?? false;
}
