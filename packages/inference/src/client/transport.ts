import { Pool, errors as undiciErrors } from "undici";
import { InferenceError, isRetryableStatus } from "./errors";
import { readSseData } from "./sse";

export interface TransportTimeouts {
  /** TCP + TLS connect. */
  connectMs: number;
  /**
   * Until the response headers arrive. A non-streaming generation sends its
   * headers only when it is done, so this bounds a whole generation; Node's
   * default (300 s) silently kills long generations, hence explicit values.
   */
  headersMs: number;
  /** Longest silence between two body chunks (streaming: between tokens). */
  bodyIdleMs: number;
}

export const DEFAULT_TIMEOUTS: TransportTimeouts = { connectMs: 10_000, headersMs: 30 * 60_000, bodyIdleMs: 120_000 };

/**
 * One replica's HTTP connections: a keep-alive pool sized to the replica's
 * in-flight limit, so a request never waits for a socket the scheduler thinks it has.
 */
export class ReplicaTransport {
  private readonly pool: Pool;
  private readonly basePath: string;
  /** The server root: the base path without its trailing "/v1" (vLLM serves /pooling, /health and /metrics there). */
  private readonly rootPath: string;
  readonly origin: string;

  constructor(
    readonly baseUrl: string,
    connections: number,
    private readonly timeouts: TransportTimeouts,
    private readonly apiKey?: string,
  ) {
    const url = new URL(baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.rootPath = this.basePath.replace(/\/v1$/, "");
    this.pool = new Pool(this.origin, {
      connections,
      pipelining: 1,
      // undici 8 speaks HTTP/2 to a TLS server that offers it (docs/best-practices/migrating-from-v7-to-v8.md);
      // one request per connection is what sizes this pool to the replica's in-flight limit, so HTTP/1.1 stays.
      allowH2: false,
      keepAliveTimeout: 60_000,
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyIdleMs,
    });
  }

  private headers(): Record<string, string> {
    return {
      "content-type": "application/json",
      accept: "application/json",
      ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
    };
  }

  /**
   * POSTs JSON and returns the parsed JSON body; errors become typed `InferenceError`s.
   * `path` is relative to the base URL, or with `atRoot` to the server root (the
   * base URL without a trailing "/v1": `http://host:8000/v1` → `http://host:8000`).
   */
  async postJson(path: string, body: unknown, signal?: AbortSignal, options: { atRoot?: boolean } = {}): Promise<unknown> {
    const fullPath = (options.atRoot ? this.rootPath : this.basePath) + path;
    const where = this.origin + fullPath;
    const response = await this.send("POST", path, JSON.stringify(body), signal, undefined, fullPath);
    const text = await this.readText(response.body, path, signal);
    if (response.statusCode >= 400) throw statusError(where, response.statusCode, text, response.headers["retry-after"]);
    try {
      return JSON.parse(text);
    } catch {
      throw new InferenceError(`${where}: response is not JSON (${text.slice(0, 80)}…)`, "malformed", true);
    }
  }

  /** POSTs JSON and yields the `data:` payloads of the server-sent event stream. */
  async *postStream(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<string> {
    const response = await this.send("POST", path, JSON.stringify(body), signal, "text/event-stream");
    if (response.statusCode >= 400) {
      const text = await this.readText(response.body, path, signal);
      throw statusError(this.baseUrl + path, response.statusCode, text, response.headers["retry-after"]);
    }
    try {
      yield* readSseData(response.body as AsyncIterable<Uint8Array | string>);
    } catch (error) {
      throw this.wrap(error, path, signal);
    }
  }

  async getJson(path: string, timeoutMs: number): Promise<unknown> {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await this.send("GET", path, undefined, signal);
    const text = await this.readText(response.body, path, signal);
    if (response.statusCode >= 400) throw statusError(this.baseUrl + path, response.statusCode, text, undefined);
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      throw new InferenceError(`${this.baseUrl}${path}: response is not JSON`, "malformed", true);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async send(method: "GET" | "POST", path: string, body: string | undefined, signal?: AbortSignal, accept?: string, fullPath = this.basePath + path) {
    try {
      return await this.pool.request({
        method,
        path: fullPath,
        headers: accept ? { ...this.headers(), accept } : this.headers(),
        body,
        signal,
      });
    } catch (error) {
      throw this.wrap(error, path, signal);
    }
  }

  private async readText(body: AsyncIterable<unknown> & { text(): Promise<string> }, path: string, signal?: AbortSignal): Promise<string> {
    try {
      return await body.text();
    } catch (error) {
      throw this.wrap(error, path, signal);
    }
  }

  private wrap(error: unknown, path: string, signal?: AbortSignal): InferenceError {
    if (error instanceof InferenceError) return error;
    const where = `${this.baseUrl}${path}`;
    if (signal?.aborted) {
      const reason = signal.reason as { name?: string } | undefined;
      if (reason?.name === "TimeoutError") return new InferenceError(`${where}: timed out`, "timeout", true);
      return new InferenceError(`${where}: cancelled`, "cancelled", false);
    }
    if (
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError ||
      error instanceof undiciErrors.ConnectTimeoutError
    ) {
      return new InferenceError(`${where}: ${error.message}`, "timeout", true);
    }
    const message = error instanceof Error ? error.message : String(error);
    return new InferenceError(`${where}: ${message}`, "connection", true);
  }
}

function statusError(where: string, status: number, body: string, retryAfter: string | string[] | undefined): InferenceError {
  let detail = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string }; message?: string };
    detail = parsed.error?.message ?? parsed.message ?? detail;
  } catch {
    // not JSON: keep the raw text
  }
  const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  const seconds = header !== undefined && Number.isFinite(Number(header)) ? Number(header) : undefined;
  return new InferenceError(`${where}: HTTP ${status}: ${detail}`, "http", isRetryableStatus(status), status, seconds);
}
