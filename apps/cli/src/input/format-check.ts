import { open } from "node:fs/promises";
import path from "node:path";
import { importFormatMismatch, SNIFF_HEAD_BYTES, type ImportFormat } from "@stepwiser/core";

/** The first SNIFF_HEAD_BYTES of a file (all of it when shorter). */
async function headOf(file: string): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const buffer = new Uint8Array(SNIFF_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Refuses a file whose head shows it is in another format than `format` (a JSON
 * array given to `import prm800k`, a Parquet file to `import jsonl`), naming what
 * it looks like and the command that reads it: an InputError (exit 2). `given` is
 * the file as typed, for that command.
 */
export async function checkFileFormat(format: ImportFormat, file: string, given: string): Promise<void> {
  const mismatch = importFormatMismatch(format, await headOf(file), path.basename(file), given);
  if (mismatch) throw mismatch;
}
