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
  const [datasets, problems, trajectories, segmentations, chunks, runs, storedFiles, auditLogs] = await Promise.all([
    db.dataset.count(),
    db.problem.count(),
    db.trajectory.count(),
    db.segmentation.count(),
    db.chunk.count(),
    db.run.count(),
    db.storedFile.count(),
    db.auditLog.count(),
  ]);
  return { datasets, problems, trajectories, segmentations, chunks, runs, storedFiles, auditLogs };
}

/** Row counts of the data an import writes (not the run and file that record the attempt). */
export async function dataRowCounts(db: Db) {
  const [datasets, problems, trajectories, segmentations, chunks, humanLabels, chunkLabels, chunkValues] = await Promise.all([
    db.dataset.count(),
    db.problem.count(),
    db.trajectory.count(),
    db.segmentation.count(),
    db.chunk.count(),
    db.humanLabel.count(),
    db.chunkLabel.count(),
    db.chunkValue.count(),
  ]);
  return { datasets, problems, trajectories, segmentations, chunks, humanLabels, chunkLabels, chunkValues };
}
