import { InputError, readLines } from "@stepwiser/core";
import type { Db, Prisma, Run } from "@stepwiser/db";
import { importBatchOutput } from "../../batch/import-output";
import type { OtherRuns } from "../../runs/run-kind";
import { readStoredFile } from "../../files/stored-files";
import { QUEUES, type JobQueue } from "../../queue/queue";
import { markRunFinished, markRunStarted } from "../../runs/run-state";
import { resumeRun } from "../../runs/run-control";
import type { ImportJob } from "./submit";
import { recordAudit } from "@stepwiser/db";

import { BATCH_OUTPUT_FORMAT, type BatchOutputImportConfig } from "./options";

export interface BatchOutputImportRequest {
  /** The uploaded output file. */
  fileId: string;
  /** The offline run whose requests the file answers. */
  runId: string;
  createdById?: string | null;
}

/** Records a queued import of a batch output for an offline run and enqueues it. */
export async function submitBatchOutputImport(db: Db, queue: JobQueue, request: BatchOutputImportRequest): Promise<Run> {
  const file = await db.storedFile.findUnique({ where: { id: request.fileId } });
  if (!file || file.purpose !== "upload" || !file.completedAt) throw new InputError(`no finished upload ${request.fileId}`, { field: "fileId" });
  const target = await db.run.findUnique({ where: { id: request.runId }, select: { id: true, datasetId: true } });
  if (!target) throw new InputError(`run ${request.runId} does not exist`, { field: "runId" });
  const run = await db.$transaction(async (tx) => {
    const created = await tx.run.create({
      data: {
        kind: "import",
        spendRecordedAt: new Date(),
        config: { format: BATCH_OUTPUT_FORMAT, fileName: file.fileName, targetRunId: target.id } as Prisma.InputJsonValue,
        inputFileId: file.id,
        datasetId: target.datasetId,
        createdById: request.createdById ?? null,
      },
    });
    await recordAudit(tx, request.createdById, {
      action: "import.submitted",
      entityType: "Run",
      entityId: created.id,
      after: { fileName: file.fileName, format: BATCH_OUTPUT_FORMAT, targetRunId: target.id },
    });
    return created;
  });
  await queue.send(QUEUES.import, { runId: run.id } satisfies ImportJob, { singletonKey: run.id });
  return run;
}

/**
 * Stores what the output's requests would have stored online (one transaction,
 * all or nothing; importing the same file again is a no-op), then queues the
 * offline run, which finds its samples stored and sends only failed requests.
 * A crash between the two is safe: the retry imports nothing new and queues it.
 */
export async function runBatchOutputImport(db: Db, run: Run, config: BatchOutputImportConfig, queue: JobQueue | undefined, runs: OtherRuns): Promise<void> {
  const { targetRunId, fileName } = config;
  await markRunStarted(db, run.id);
  try {
    if (!run.inputFileId) throw new InputError("the uploaded file is no longer stored");
    const result = await importBatchOutput(db, targetRunId, runs.unitKinds, readLines(readStoredFile(db, run.inputFileId), fileName), fileName);
    if (queue) {
      const target = await db.run.findUniqueOrThrow({ where: { id: targetRunId }, select: { status: true } });
      // An offline run was never queued; a cancelled or failed one goes back the way `run resume` sends it.
      if (target.status === "queued") await queue.send(QUEUES.run, { runId: targetRunId });
      else if (target.status !== "running" && target.status !== "completed") await resumeRun(db, queue, targetRunId, run.createdById ?? undefined);
    }
    await db.$transaction(async (tx) => {
      await tx.run.update({
        where: { id: run.id },
        data: { unitsDone: result.requests, unitsTotal: result.requests + result.skipped, summary: { format: BATCH_OUTPUT_FORMAT, targetRunId, ...result } as Prisma.InputJsonValue },
      });
      await markRunFinished(tx, run.id, "completed");
    });
  } catch (error) {
    if (error instanceof InputError) {
      await markRunFinished(db, run.id, "failed", error.message);
      return;
    }
    throw error;
  }
}
