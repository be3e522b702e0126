import { createHash } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import type { RemoteSettings } from "./settings";

/** Where the REST API is mounted under the studio's address. */
export const API_PREFIX = "/api/v1";

/** Seconds a JSON request may take before it is given up (downloads and uploads stream without a limit). */
const JSON_TIMEOUT_MS = 60_000;

/**
 * A refusal of the studio's API: its code, field and message, as the API's
 * error body `{"error": {"code", "message", "field"?}}` gives them. Bad input
 * (400) exits 2, any other refusal 1.
 */
export class RemoteApiError extends Error {
  override readonly name = "RemoteApiError";
  readonly exitCode: number;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly code: string,
    readonly reason: string,
    readonly field?: string,
  ) {
    super(`${method} ${path} answered ${status} ${code}${field ? ` (field ${field})` : ""}: ${reason}`);
    this.exitCode = status === 400 ? 2 : 1;
  }
}

/** The studio could not be reached (refused, unknown host, timed out): exit 1, naming the address. */
export class RemoteConnectionError extends Error {
  override readonly name = "RemoteConnectionError";
  readonly exitCode = 1;
}

/** An answer's error body as code, message and field; a body that is not the API's JSON (a proxy's page, a plain-text route) is quoted shortened. */
export function refusalOf(status: number, bodyText: string): { code: string; message: string; field?: string } {
  try {
    const parsed = JSON.parse(bodyText) as { error?: { code?: unknown; message?: unknown; field?: unknown } };
    const error = parsed?.error;
    if (error && typeof error.message === "string") {
      return { code: typeof error.code === "string" ? error.code : `HTTP_${status}`, message: error.message, ...(typeof error.field === "string" ? { field: error.field } : {}) };
    }
  } catch {
    // not JSON: quoted below
  }
  const text = bodyText.replace(/\s+/g, " ").trim();
  return { code: `HTTP_${status}`, message: text ? (text.length > 300 ? `${text.slice(0, 300)}…` : text) : "(no message)" };
}

/** Why a fetch failed, in a few words: the system's error code (ECONNREFUSED, ENOTFOUND, …) when there is one. */
function causeOf(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return `no answer within ${JSON_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === "string") return cause.code;
  if (cause && typeof cause.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

type Query = Record<string, string | number | boolean | undefined>;

/** The studio's REST API over Node's fetch, with the token as a bearer credential. */
export class RemoteClient {
  constructor(private readonly settings: RemoteSettings) {}

  get baseUrl(): string {
    return this.settings.baseUrl;
  }

  /** `path` (under /api/v1) with its query, as a full URL. */
  urlOf(path: string, query: Query = {}): string {
    const url = new URL(`${this.settings.baseUrl}${API_PREFIX}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.href;
  }

  /** A message never carries the token, even where the studio echoes it. */
  private scrub(text: string): string {
    return text.split(this.settings.token).join("sw_…");
  }

  private async send(method: string, path: string, init: { query?: Query; body?: RequestInit["body"]; headers?: Record<string, string>; timeout?: boolean; duplex?: boolean } = {}): Promise<Response> {
    const url = this.urlOf(path, init.query);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${this.settings.token}`, accept: "application/json, application/x-ndjson, */*", ...init.headers },
        body: init.body,
        redirect: "error",
        ...(init.timeout === false ? {} : { signal: AbortSignal.timeout(JSON_TIMEOUT_MS) }),
        ...(init.duplex ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      throw new RemoteConnectionError(this.scrub(`cannot reach the studio at ${this.settings.baseUrl} (${method} ${API_PREFIX}${path}: ${causeOf(error)}); is it running, and is STEPWISER_URL (or --url) its address?`));
    }
    if (!response.ok) {
      const refusal = refusalOf(response.status, await response.text().catch(() => ""));
      throw new RemoteApiError(method, `${API_PREFIX}${path}`, response.status, refusal.code, this.scrub(refusal.message), refusal.field);
    }
    return response;
  }

  /** A JSON request (body sent as JSON), answered with JSON. */
  async json<T>(method: "GET" | "POST", path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const response = await this.send(method, path, {
      query: options.query,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body), headers: { "content-type": "application/json" } }),
    });
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RemoteConnectionError(`${method} ${API_PREFIX}${path} at ${this.settings.baseUrl} did not answer JSON (is STEPWISER_URL the studio's address?): ${text.slice(0, 200)}`);
    }
  }

  /** Sends a file's bytes as the body, streamed from disk (`application/octet-stream`), answered with JSON. */
  async upload<T>(path: string, query: Query, file: string): Promise<T> {
    const { size } = await stat(file);
    const body = Readable.toWeb(createReadStream(file, { highWaterMark: 1024 * 1024 })) as ReadableStream<Uint8Array>;
    const response = await this.send("POST", path, { query, body, headers: { "content-type": "application/octet-stream", "content-length": String(size) }, timeout: false, duplex: true });
    return (await response.json()) as T;
  }

  /**
   * Streams an answer's body into `destination` (a file, or stdout for "-"), hashing it on the way;
   * resolves with its size, SHA-256 (hex) and number of lines (newlines).
   */
  async download(path: string, destination: string, query: Query = {}): Promise<{ sizeBytes: number; sha256: string; lines: number }> {
    const response = await this.send("GET", path, { query, timeout: false });
    const hash = createHash("sha256");
    let sizeBytes = 0;
    let lines = 0;
    const out = destination === "-" ? process.stdout : createWriteStream(destination);
    try {
      if (response.body) {
        for await (const piece of Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>)) {
          const bytes = piece as Uint8Array;
          hash.update(bytes);
          sizeBytes += bytes.byteLength;
          for (const byte of bytes) if (byte === 0x0a) lines += 1;
          if (!out.write(bytes)) await once(out, "drain");
        }
      }
    } finally {
      if (out !== process.stdout) {
        out.end();
        await once(out, "close");
      }
    }
    return { sizeBytes, sha256: hash.digest("hex"), lines };
  }
}
