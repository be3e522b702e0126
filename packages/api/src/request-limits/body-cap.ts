/*
 * The cap on an API request's body, read from the environment. Imports nothing: the HTTP server (apps/web/server.ts)
 * loads it directly to refuse a body whose Content-Length passes the cap before any of it is read.
 */

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

/** A positive integer setting from `env`, or `fallback` when unset; anything else throws naming the variable. */
export function positiveIntegerSetting(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text.trim() === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

/** STEPWISER_MAX_REQUEST_BYTES: the largest tRPC or REST body read into memory (default 10 MiB). Uploads have their own cap. */
export function maxRequestBytesFromEnv(env: Record<string, string | undefined> = process.env): number {
  return positiveIntegerSetting(env, "STEPWISER_MAX_REQUEST_BYTES", DEFAULT_MAX_REQUEST_BODY_BYTES);
}

/** The upload paths: the web app's and the REST API's. Their bodies stream to storage under the upload cap. */
const UPLOAD_PATHS = ["/api/uploads", "/api/v1/uploads"];

/** The paths whose bodies are API requests (read whole into memory) rather than uploads (streamed to storage under their own cap). */
export function isCappedApiPath(pathname: string): boolean {
  return pathname.startsWith("/api/") && !UPLOAD_PATHS.some((path) => pathname === path || pathname.startsWith(`${path}/`) || pathname.startsWith(`${path}?`));
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

/** Why a body was refused: its declared size when it gave one, and the cap with the setting that moves it. */
export function bodyTooLargeMessage(limitBytes: number, declared?: number): string {
  const size = declared !== undefined ? `the body is ${declared.toLocaleString("en")} bytes, ` : "the body is larger than the cap: ";
  return `${size}more than the ${mebibytes(limitBytes)} an API request may send (STEPWISER_MAX_REQUEST_BYTES); upload large files with POST /api/uploads (or /api/v1/uploads)`;
}
