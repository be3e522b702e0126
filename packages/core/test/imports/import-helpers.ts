import { readFileSync } from "node:fs";
import { join } from "node:path";
import { piecesOf } from "../../src/imports/byte-streams";
import type { ImportFormat } from "../../src/imports/imported-solution";
import { readImportRecords, type ImportedRecord, type ImportReadOptions } from "../../src/imports/read-records";

export const FIXTURES = join(import.meta.dirname, "../fixtures/imports");

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, name)));
}

export async function readAll(
  format: ImportFormat,
  content: Uint8Array | string,
  options: Partial<ImportReadOptions> = {},
  pieceSize?: number,
): Promise<ImportedRecord[]> {
  const out: ImportedRecord[] = [];
  for await (const item of readImportRecords(format, piecesOf(content, pieceSize), { file: "test-file", ...options })) out.push(item);
  return out;
}

export async function readFixture(format: ImportFormat, name: string, options: Partial<ImportReadOptions> = {}, pieceSize?: number) {
  return readAll(format, fixtureBytes(name), { file: name, ...options }, pieceSize);
}

/** The rejection of a promise, which must reject. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the read to fail, but it succeeded");
    },
    (error: unknown) => error,
  );
}
