import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH, PayloadTooLargeError } from "@stepwiser/core";
import { MAX_IMPORT_FILE_BYTES } from "@stepwiser/jobs";
import { bodyTooLargeMessage, maxRequestBytesFromEnv, positiveIntegerSetting } from "./body-cap";

export { DEFAULT_MAX_REQUEST_BODY_BYTES } from "./body-cap";

/** What one API request (tRPC or REST) may send. Uploads have their own cap (MAX_IMPORT_FILE_BYTES) and stream to storage. */
export interface RequestLimits {
  /** Largest body read into memory. */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body. */
  maxJsonDepth: number;
  /** Largest upload (a REST operation's "bytes" body), streamed to storage and never held whole; MAX_IMPORT_FILE_BYTES (8 GiB) unless given. */
  maxUploadBytes?: number;
}

/** The cap on an upload under `limits`. */
export function uploadLimitOf(limits: RequestLimits): number {
  return limits.maxUploadBytes ?? MAX_IMPORT_FILE_BYTES;
}

/** STEPWISER_MAX_REQUEST_BYTES (default 10 MiB) and STEPWISER_MAX_JSON_DEPTH (default 64). */
export function requestLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): RequestLimits {
  return { maxBodyBytes: maxRequestBytesFromEnv(env), maxJsonDepth: positiveIntegerSetting(env, "STEPWISER_MAX_JSON_DEPTH", DEFAULT_MAX_JSON_DEPTH) };
}

export function bodyTooLarge(limitBytes: number, declared?: number): PayloadTooLargeError {
  return new PayloadTooLargeError(bodyTooLargeMessage(limitBytes, declared), limitBytes);
}

/**
 * A request's body as text, read as it streams in and refused with PayloadTooLargeError the moment it passes
 * `maxBodyBytes` (or at once, unread, when its Content-Length says so): at most the cap is ever held in memory. JSON
 * that nests deeper than `maxJsonDepth` is refused before anything parses it. Cancels the rest of the body when it
 * refuses.
 */
export async function readBoundedBody(request: Request, limits: RequestLimits): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limits.maxBodyBytes) {
    await request.body?.cancel().catch(() => undefined);
    throw bodyTooLarge(limits.maxBodyBytes, Number(declared));
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const pieces: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limits.maxBodyBytes) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(limits.maxBodyBytes);
    }
    pieces.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.byteLength;
  }
  const text = new TextDecoder().decode(bytes);
  assertJsonDepth(text, limits.maxJsonDepth, { field: "body" });
  return text;
}
