import { createHash } from "node:crypto";
import path from "node:path";
import { parseProcessBenchFile, subsetFromId } from "@stepwiser/core";
import type { Db, Run } from "@stepwiser/db";
import { z } from "zod";
import { QUEUES, type JobQueue } from "../../queue/queue";

export const importProcessBenchJobSchema = z.object({ runId: z.string().min(1) });
export type ImportProcessBenchJob = z.infer<typeof importProcessBenchJobSchema>;

export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

export interface ProcessBenchImportRequest {
  fileName: string;
  content: Buffer;
  /** Dataset name; defaults to "ProcessBench <subsets>". */
  datasetName?: string;
  createdById?: string;
}

/**
 * Validates the whole file before anything is written (a bad record stores
 * nothing), then records the file and a queued import run and enqueues it.
 */
export async function submitProcessBenchImport(db: Db, queue: JobQueue, request: ProcessBenchImportRequest): Promise<Run> {
  const fileName = path.basename(request.fileName);
  if (request.content.byteLength > MAX_IMPORT_FILE_BYTES) {
    throw new Error(`${fileName}: ${request.content.byteLength} bytes is over the ${MAX_IMPORT_FILE_BYTES}-byte import limit`);
  }
  const { records } = parseProcessBenchFile(request.content.toString("utf8"), fileName);
  const subsets = [...new Set(records.map((r) => subsetFromId(r.id)))].sort();
  const datasetName = request.datasetName?.trim() || `ProcessBench ${subsets.join(", ")}`;

  const run = await db.$transaction(async (tx) => {
    const file = await tx.importFile.create({
      data: {
        fileName,
        sha256: createHash("sha256").update(request.content).digest("hex"),
        sizeBytes: request.content.byteLength,
        content: new Uint8Array(request.content),
        createdById: request.createdById ?? null,
      },
      select: { id: true },
    });
    const created = await tx.run.create({
      data: {
        kind: "import",
        config: { format: "processbench", fileName, datasetName, subsets, records: records.length },
        importFileId: file.id,
        createdById: request.createdById ?? null,
        unitsTotal: records.length,
      },
    });
    await tx.auditLog.create({
      data: {
        actorId: request.createdById ?? null,
        action: "import.submitted",
        entityType: "Run",
        entityId: created.id,
        after: { fileName, datasetName, records: records.length },
      },
    });
    return created;
  });
  const job: ImportProcessBenchJob = { runId: run.id };
  await queue.send(QUEUES.importProcessBench, job, { singletonKey: run.id });
  return run;
}
