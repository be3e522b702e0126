import { readImportOutcomes, type ImportOutcome } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { readStoredFile } from "../../files/stored-files";
import type { ImportOptions } from "./options";

export interface StoredImportFile {
  id: string;
  fileName: string;
  sizeBytes: bigint;
}

/**
 * Every record of a stored upload as an outcome (read, ignored or invalid), in
 * file order, read by the format the import's options name. `onRead` is told
 * how many bytes of the stored file each step consumed (for progress).
 */
export function storedFileOutcomes(db: Db, file: StoredImportFile, config: ImportOptions, onRead: (bytes: number) => void): AsyncIterable<ImportOutcome> {
  const pieces = countBytes(readStoredFile(db, file.id), onRead);
  return readImportOutcomes(config.format, pieces, {
    file: file.fileName,
    subset: config.subset,
    generator: config.generator,
    mapping: config.mapping,
  });
}

async function* countBytes(pieces: AsyncIterable<Uint8Array>, onRead: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  for await (const piece of pieces) {
    onRead(piece.byteLength);
    yield piece;
  }
}
