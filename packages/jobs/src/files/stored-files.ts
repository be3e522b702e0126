import { createHash } from "node:crypto";
import type { Db, StoredFile } from "@stepwiser/db";

/** Parts are a few MiB: big enough that a GB file is a few hundred rows, small enough to stream. */
export const STORED_FILE_PART_BYTES = 4 * 1024 * 1024;

export interface StoreFileRequest {
  fileName: string;
  purpose: "upload" | "export";
  contentType?: string;
  createdById?: string | null;
  producedByRunId?: string | null;
  /** Refuse (and remove what was written) once the content grows past this. */
  maxBytes?: number;
}

export class FileTooLargeError extends Error {
  override readonly name = "FileTooLargeError";
  constructor(
    readonly fileName: string,
    readonly maxBytes: number,
  ) {
    super(`${fileName}: the file is larger than the ${maxBytes}-byte limit`);
  }
}

/**
 * Writes a file into the database part by part as its bytes arrive, so an
 * upload of any size never sits in memory and any worker can read it later.
 * The row is complete (sha256, size, completedAt) only once every part is in;
 * on any failure the partial file is removed.
 */
export async function storeFile(db: Db, request: StoreFileRequest, content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile> {
  const file = await db.storedFile.create({
    data: {
      fileName: request.fileName,
      purpose: request.purpose,
      contentType: request.contentType ?? "application/octet-stream",
      createdById: request.createdById ?? null,
      producedByRunId: request.producedByRunId ?? null,
    },
  });
  const hash = createHash("sha256");
  let size = 0;
  let index = 0;
  let buffer = Buffer.allocUnsafe(STORED_FILE_PART_BYTES);
  let filled = 0;
  const flush = async () => {
    if (filled === 0) return;
    await db.storedFilePart.create({ data: { fileId: file.id, index, content: new Uint8Array(buffer.subarray(0, filled)) } });
    index += 1;
    buffer = Buffer.allocUnsafe(STORED_FILE_PART_BYTES);
    filled = 0;
  };
  try {
    for await (const piece of content) {
      size += piece.byteLength;
      if (request.maxBytes !== undefined && size > request.maxBytes) throw new FileTooLargeError(request.fileName, request.maxBytes);
      hash.update(piece);
      let at = 0;
      while (at < piece.byteLength) {
        const take = Math.min(STORED_FILE_PART_BYTES - filled, piece.byteLength - at);
        buffer.set(piece.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === STORED_FILE_PART_BYTES) await flush();
      }
    }
    await flush();
    return await db.storedFile.update({
      where: { id: file.id },
      data: { sha256: hash.digest("hex"), sizeBytes: BigInt(size), completedAt: new Date() },
    });
  } catch (error) {
    await db.storedFile.delete({ where: { id: file.id } }).catch(() => {});
    throw error;
  }
}

/** A stored file's bytes, one part per query, in order. */
export async function* readStoredFile(db: Db, fileId: string): AsyncGenerator<Uint8Array> {
  for (let index = 0; ; index++) {
    const part = await db.storedFilePart.findUnique({ where: { fileId_index: { fileId, index } }, select: { content: true } });
    if (!part) return;
    yield part.content;
  }
}

/** Small in-memory content (exports, tests) as an iterable of parts. */
export function bytesOf(content: Uint8Array | string): Uint8Array[] {
  return [typeof content === "string" ? new TextEncoder().encode(content) : content];
}

/**
 * Bytes `[start, end)` of a stored file, fetching only the parts that cover
 * them (every part but the last holds STORED_FILE_PART_BYTES, as storeFile
 * writes them). Formats that need random access (Parquet) read through this.
 */
export async function readStoredFileRange(db: Db, fileId: string, start: number, end: number): Promise<Uint8Array> {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start) throw new RangeError(`bad byte range [${start}, ${end})`);
  if (end === start) return new Uint8Array(0);
  const first = Math.floor(start / STORED_FILE_PART_BYTES);
  const last = Math.floor((end - 1) / STORED_FILE_PART_BYTES);
  const parts = await db.storedFilePart.findMany({
    where: { fileId, index: { gte: first, lte: last } },
    orderBy: { index: "asc" },
    select: { index: true, content: true },
  });
  const out = new Uint8Array(end - start);
  let filled = 0;
  for (const part of parts) {
    const partStart = part.index * STORED_FILE_PART_BYTES;
    const from = Math.max(start, partStart) - partStart;
    const to = Math.min(end, partStart + part.content.byteLength) - partStart;
    if (to <= from) continue;
    out.set(part.content.subarray(from, to), Math.max(start, partStart) - start);
    filled += to - from;
  }
  if (filled !== end - start) throw new RangeError(`stored file ${fileId} holds ${filled} of the ${end - start} bytes at [${start}, ${end})`);
  return out;
}
