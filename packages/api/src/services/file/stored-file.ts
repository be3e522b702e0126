import { ConflictError, NotFoundError } from "@stepwiser/core";
import { importReportLines, readStoredFile, storeFile } from "@stepwiser/jobs";
import type { ReadServiceArgs, ServiceArgs } from "../args";

export interface UploadRequest {
  fileName: string;
  /** Refuse (FileTooLargeError, nothing kept) once the content grows past this. */
  maxBytes: number;
  contentType: string;
}

/** Stores an upload of the caller's, part by part as `pieces` arrive; a refusal midway leaves nothing stored. */
export async function storeUpload({ db, user, input }: ServiceArgs<UploadRequest>, pieces: AsyncIterable<Uint8Array>) {
  const file = await storeFile(db, { fileName: input.fileName, purpose: "upload", createdById: user.id, maxBytes: input.maxBytes, contentType: input.contentType }, pieces);
  return { fileId: file.id, fileName: file.fileName, sizeBytes: Number(file.sizeBytes), sha256: file.sha256 };
}

/** A stored file (an upload or an export's output) to stream: its facts and its parts, read as they are consumed. */
export async function openStoredFile({ db, input }: ReadServiceArgs<{ id: string }>) {
  const file = await db.storedFile.findUnique({ where: { id: input.id }, select: { id: true, fileName: true, contentType: true, sizeBytes: true, completedAt: true } });
  if (!file) throw new NotFoundError(`file ${input.id} does not exist`);
  if (!file.completedAt) throw new ConflictError(`${file.fileName} is still being written; try again when its run has finished`);
  return { fileName: file.fileName, contentType: file.contentType, sizeBytes: file.sizeBytes, parts: readStoredFile(db, file.id) };
}

/** An import run's report (records left out as invalid or ignored) as lines, read page by page as they are consumed. */
export async function importReportLinesOf({ db, input }: ReadServiceArgs<{ runId: string }>) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { kind: true } });
  if (!run || run.kind !== "import") throw new NotFoundError(`import run ${input.runId} does not exist`);
  return importReportLines(db, input.runId);
}
