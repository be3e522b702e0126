import type { Db, Run } from "@stepwiser/db";
import { isTerminal } from "../src";

export async function waitForRun(db: Db, runId: string, timeoutMs = 60_000): Promise<Run> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (isTerminal(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} (${run.unitsDone}/${run.unitsTotal}) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Row counts of every table an import writes, to prove a rejected import wrote nothing. */
export async function rowCounts(db: Db) {
  const [datasets, problems, trajectories, segmentations, chunks, runs, importFiles, auditLogs] = await Promise.all([
    db.dataset.count(),
    db.problem.count(),
    db.trajectory.count(),
    db.segmentation.count(),
    db.chunk.count(),
    db.run.count(),
    db.importFile.count(),
    db.auditLog.count(),
  ]);
  return { datasets, problems, trajectories, segmentations, chunks, runs, importFiles, auditLogs };
}
