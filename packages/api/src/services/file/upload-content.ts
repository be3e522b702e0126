import { InputError, UnsupportedContentError } from "@stepwiser/core";

/*
 * What an upload may hold: every import format but Parquet (ProcessBench JSON,
 * PRM800K, Math-Shepherd and generic JSONL, `vllm run-batch` output) is UTF-8
 * text, so a file with a NUL byte or a broken UTF-8 sequence is refused
 * (UnsupportedContentError, 415) as it streams in, before the rest of it is
 * read or any of it is kept; an empty file is bad input (InputError, 400). A
 * Parquet file is binary and is told by its first four bytes, "PAR1"; the
 * import checks the rest of its layout (its footer) when it reads it.
 */

const formatByte = (offset: number) => offset.toLocaleString("en");

const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"

/**
 * Passes the pieces of an upload through: a Parquet file (first bytes "PAR1")
 * as it is, anything else checked as UTF-8 text by textUploadPieces.
 */
export async function* uploadPieces(fileName: string, pieces: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const iterator = pieces[Symbol.asyncIterator]();
  // Look at the first four bytes, which may come in more than one piece.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < PARQUET_MAGIC.length) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.byteLength;
  }
  const start = new Uint8Array(Math.min(headBytes, PARQUET_MAGIC.length));
  let at = 0;
  for (const piece of head) {
    const take = Math.min(piece.byteLength, start.length - at);
    start.set(piece.subarray(0, take), at);
    at += take;
    if (at === start.length) break;
  }
  const isParquet = start.length === PARQUET_MAGIC.length && PARQUET_MAGIC.every((byte, i) => start[i] === byte);
  async function* all(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (ended) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  try {
    yield* isParquet ? all() : textUploadPieces(fileName, all());
  } finally {
    // Stopping early (a refused or too-large file) lets the source cancel its stream.
    if (!ended) await iterator.return?.();
  }
}

/** Passes the pieces of a text upload through, throwing UnsupportedContentError at the first piece that is not UTF-8 text. */
export async function* textUploadPieces(fileName: string, pieces: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = 0;
  for await (const piece of pieces) {
    const nul = piece.indexOf(0);
    if (nul !== -1) {
      throw new UnsupportedContentError(`${fileName} is not a text file: byte ${formatByte(offset + nul)} is a NUL byte; upload the JSON or JSONL file itself (not compressed or binary) or a Parquet file`);
    }
    try {
      decoder.decode(piece, { stream: true });
    } catch {
      throw new UnsupportedContentError(`${fileName} is not UTF-8 text: an invalid byte sequence in bytes ${formatByte(offset)}–${formatByte(offset + piece.byteLength - 1)}; save the file as UTF-8`);
    }
    offset += piece.byteLength;
    yield piece;
  }
  try {
    decoder.decode();
  } catch {
    throw new UnsupportedContentError(`${fileName} is not UTF-8 text: it ends inside a multi-byte character; save the file as UTF-8`);
  }
  if (offset === 0) throw new InputError(`${fileName} is empty: there is nothing to import`, { field: "body" });
}
