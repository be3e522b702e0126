import { InputError } from "@stepwiser/core";
import { recordAudit, type Db } from "@stepwiser/db";
import { QUEUES, type JobQueue } from "../queue/queue";

async function existingRun(db: Db, runId: string) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { status: true, kind: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  return run;
}

/** Asks the worker executing the run to stop; a run still queued is cancelled when picked up. */
export async function requestRunCancel(db: Db, runId: string, actorId?: string): Promise<void> {
  const run = await existingRun(db, runId);
  if (run.status !== "queued" && run.status !== "running") throw new InputError(`run ${runId} is ${run.status}; only queued or running runs can be cancelled`);
  await db.$transaction([
    db.run.update({ where: { id: runId }, data: { cancelRequestedAt: new Date() } }),
    recordAudit(db, actorId, { action: "run.cancel_requested", entityType: "Run", entityId: runId }),
  ]);
}

/** Queues a cancelled or interrupted run again; its done units are kept. */
export async function resumeRun(db: Db, queue: JobQueue, runId: string, actorId?: string): Promise<void> {
  const run = await existingRun(db, runId);
  if (run.status === "completed") throw new InputError(`run ${runId} is completed; nothing to resume`);
  await db.runUnit.updateMany({ where: { runId, status: "failed" }, data: { status: "pending", attempts: 0 } });
  await db.$transaction([
    db.run.update({ where: { id: runId }, data: { status: "queued", cancelRequestedAt: null, finishedAt: null, error: null } }),
    recordAudit(db, actorId, { action: "run.resumed", entityType: "Run", entityId: runId }),
  ]);
  // Imports and exports have their own queues; every other kind runs on the engine.
  const queueName = run.kind === "import" ? QUEUES.import : run.kind === "export" ? QUEUES.export : QUEUES.run;
  await queue.send(queueName, { runId });
}
