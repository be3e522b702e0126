import path from "node:path";
import { InputError } from "@stepwiser/core";
import type { Db, Prisma, Run } from "@stepwiser/db";
import { z } from "zod";
import { storeFile } from "../../files/stored-files";
import { QUEUES, type JobQueue } from "../../queue/queue";
import { importOptionsSchema, type ImportOptionsInput } from "./options";
import { recordAudit } from "@stepwiser/db";

export const importJobSchema = z.object({ runId: z.string().min(1) });
export type ImportJob = z.infer<typeof importJobSchema>;

/** Uploads larger than this are refused while they stream in (nothing of them is kept). */
export const MAX_IMPORT_FILE_BYTES = 8 * 1024 * 1024 * 1024;

export interface ImportRequest {
  /** A completed upload (StoredFile with purpose "upload"). */
  fileId: string;
  options: ImportOptionsInput;
  createdById?: string | null;
  /** Records in the file, when the caller has counted them (shown as the run's total from the start). */
  expectedRecords?: number;
}

/** Validates the options, records a queued import run for a stored file and enqueues it. */
export async function submitImport(db: Db, queue: JobQueue, request: ImportRequest): Promise<Run> {
  const parsed = importOptionsSchema.safeParse(request.options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { field: issue.path.map(String).join(".") || undefined });
  }
  const options = parsed.data;
  const file = await db.storedFile.findUnique({ where: { id: request.fileId } });
  if (!file || file.purpose !== "upload") throw new InputError(`no uploaded file ${request.fileId}`, { field: "fileId" });
  if (!file.completedAt) throw new InputError(`the upload of ${file.fileName} has not finished`, { field: "fileId" });
  if (options.datasetId && !(await db.dataset.findUnique({ where: { id: options.datasetId }, select: { id: true } }))) {
    throw new InputError(`dataset ${options.datasetId} does not exist`, { field: "datasetId" });
  }
  const run = await db.$transaction(async (tx) => {
    const created = await tx.run.create({
      data: {
        kind: "import",
        spendRecordedAt: new Date(),
        config: { format: options.format, fileName: file.fileName, options } as unknown as Prisma.InputJsonValue,
        inputFileId: file.id,
        createdById: request.createdById ?? null,
        unitsTotal: request.expectedRecords ?? 0,
        datasetId: options.datasetId ?? null,
      },
    });
    await recordAudit(tx, request.createdById, {
      action: "import.submitted",
      entityType: "Run",
      entityId: created.id,
      after: { fileName: file.fileName, format: options.format, sizeBytes: Number(file.sizeBytes) },
    });
    return created;
  });
  await queue.send(QUEUES.import, { runId: run.id } satisfies ImportJob, { singletonKey: run.id });
  return run;
}

export interface ImportBytesRequest extends Omit<ImportRequest, "fileId"> {
  fileName: string;
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

/** Stores the content as an upload (streamed, part by part), then submits its import. */
export async function submitImportFromContent(db: Db, queue: JobQueue, request: ImportBytesRequest): Promise<Run> {
  const file = await storeFile(
    db,
    { fileName: path.basename(request.fileName), purpose: "upload", createdById: request.createdById, maxBytes: MAX_IMPORT_FILE_BYTES },
    request.content,
  );
  try {
    return await submitImport(db, queue, { ...request, fileId: file.id });
  } catch (error) {
    await db.storedFile.delete({ where: { id: file.id } }).catch(() => {});
    throw error;
  }
}
