/**
 * What an upload may hold: every import format (ProcessBench JSON, PRM800K,
 * Math-Shepherd and generic JSONL, `vllm run-batch` output) is UTF-8 text, so
 * a file with a NUL byte or a broken UTF-8 sequence is refused as it streams
 * in, before the rest of it is read or any of it is kept.
 */
export class UploadContentError extends Error {
  constructor(
    readonly status: 400 | 415,
    message: string,
  ) {
    super(message);
    this.name = "UploadContentError";
  }
}

const formatByte = (offset: number) => offset.toLocaleString("en");

/** Passes the pieces of a text upload through, throwing UploadContentError at the first piece that is not UTF-8 text. */
export async function* textUploadPieces(fileName: string, pieces: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = 0;
  for await (const piece of pieces) {
    const nul = piece.indexOf(0);
    if (nul !== -1) {
      throw new UploadContentError(415, `${fileName} is not a text file: byte ${formatByte(offset + nul)} is a NUL byte; upload the JSON or JSONL file itself (not compressed or binary)`);
    }
    try {
      decoder.decode(piece, { stream: true });
    } catch {
      throw new UploadContentError(415, `${fileName} is not UTF-8 text: an invalid byte sequence in bytes ${formatByte(offset)}–${formatByte(offset + piece.byteLength - 1)}; save the file as UTF-8`);
    }
    offset += piece.byteLength;
    yield piece;
  }
  try {
    decoder.decode();
  } catch {
    throw new UploadContentError(415, `${fileName} is not UTF-8 text: it ends inside a multi-byte character; save the file as UTF-8`);
  }
  if (offset === 0) throw new UploadContentError(400, `${fileName} is empty: there is nothing to import`);
}
