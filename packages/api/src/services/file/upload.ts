import { InputError, PayloadTooLargeError } from "@stepwiser/core";
import { FileTooLargeError } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { safeContentType, uploadFileName } from "./file-names";
import { storeUpload } from "./stored-file";
import { uploadPieces } from "./upload-content";

/** An upload as a request brings it: the raw query and headers, the body's stream and the cap it must stay under. */
export interface ReceivedUpload {
  /** `?fileName=` as sent (null when absent); stored under its safe base name (`uploadFileName`). */
  fileName: string | null;
  /** The Content-Length header as sent, null when absent. */
  contentLength: string | null;
  contentType: string | null;
  /** Refuse the upload once it passes this many bytes (declared or counted). */
  maxBytes: number;
  body: ReadableStream<Uint8Array> | null;
}

const tooLarge = (fileName: string, maxBytes: number) =>
  new PayloadTooLargeError(`${fileName} is larger than the upload limit of ${maxBytes.toLocaleString("en")} bytes; split the file and import the parts into one dataset`, maxBytes);

/** A request body as pieces; stopping early (a too-large or refused file) cancels the rest of it. */
async function* bodyPieces(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
  }
}

/**
 * Stores a request's raw body as an upload of the caller's, part by part as it
 * arrives: what `POST /api/uploads` and the REST API's `POST /api/v1/uploads`
 * both do. A missing or unusable name and a malformed Content-Length are bad
 * input (InputError); a body over the cap, declared (refused before a byte is
 * read) or counted, is a PayloadTooLargeError; one that is neither UTF-8 text
 * nor a Parquet file an UnsupportedContentError. On any refusal reading stops,
 * the rest of the body is cancelled, and whatever parts were already written
 * are deleted with their file row.
 */
export async function receiveUpload({ db, user, input }: ServiceArgs<ReceivedUpload>) {
  const cancelBody = () => input.body?.cancel().catch(() => {});
  const fileName = uploadFileName(input.fileName);
  if (!fileName) {
    await cancelBody();
    throw new InputError("give the file's name as ?fileName=NAME", { field: "fileName" });
  }
  const declared = input.contentLength;
  if (declared !== null && !/^\d+$/.test(declared.trim())) {
    await cancelBody();
    throw new InputError(`Content-Length ${JSON.stringify(declared)} is not a byte count`);
  }
  if (declared !== null && Number(declared) > input.maxBytes) {
    await cancelBody();
    throw tooLarge(fileName, input.maxBytes);
  }
  if (!input.body) throw new InputError("the request has no body: send the file's bytes as the body", { field: "body" });
  try {
    return await storeUpload({ db, user, input: { fileName, maxBytes: input.maxBytes, contentType: safeContentType(input.contentType) } }, uploadPieces(fileName, bodyPieces(input.body)));
  } catch (error) {
    if (error instanceof FileTooLargeError) throw tooLarge(fileName, input.maxBytes);
    throw error;
  }
}
