import { readImportOutcomes, type ImportOutcome } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { readStoredFile } from "../../files/stored-files";
import type { ImportOptions } from "./options";
import { parquetImportOutcomes, storedFileBuffer } from "./parquet";

export interface StoredImportFile {
  id: string;
  fileName: string;
  sizeBytes: bigint;
}

/**
 * Every record of a stored upload as an outcome (read, ignored or invalid), in
 * file order, read by the format the import's options name. `onRead` is told
 * how many bytes of the stored file each step consumed (for progress; for
 * Parquet, the bytes of each row group once it is read).
 */
export function storedFileOutcomes(db: Db, file: StoredImportFile, config: ImportOptions, onRead: (bytes: number) => void): AsyncIterable<ImportOutcome> {
  const readOptions = { file: file.fileName, subset: config.subset, generator: config.generator, mapping: config.mapping };
  if (config.format === "parquet") return parquetImportOutcomes(storedFileBuffer(db, file.id, Number(file.sizeBytes)), readOptions, onRead);
  const pieces = countBytes(readStoredFile(db, file.id), onRead);
  return readImportOutcomes(config.format, pieces, readOptions);
}

async function* countBytes(pieces: AsyncIterable<Uint8Array>, onRead: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  for await (const piece of pieces) {
    onRead(piece.byteLength);
    yield piece;
  }
}
