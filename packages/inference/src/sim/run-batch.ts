import { randomUUID } from "node:crypto";
import { InputError } from "@stepwiser/core";
import { Pool } from "undici";
import { backoffDelayMs, sleep } from "../client/retry";

/**
 * `vllm run-batch` against a simulated cluster: reads OpenAI batch request lines
 * ({custom_id, method, url, body}), sends each body to the server, and yields
 * one output line per input line, in input order, in vLLM's output format:
 *
 *   {"id": "vllm-…", "custom_id": …, "response": {"status_code", "request_id", "body"}, "error": null}
 *
 * A failed request is an output line too (vLLM: `response.body` null, `error`
 * set), never a crash; a line that is not a batch request aborts the batch, as
 * vLLM's input validation does.
 */
export interface RunBatchOptions {
  /** The input file's lines, as text or with their line numbers (for errors); blank lines are skipped. */
  input: AsyncIterable<string | { line: number; text: string }>;
  /** The input file's name, for errors. */
  file?: string;
  /** The server's OpenAI base URL, including `/v1`. */
  baseUrl: string;
  /** Requests in flight at once (vLLM: twice `--max-num-seqs`). */
  concurrency?: number;
  apiKey?: string;
  /**
   * Attempts per request for transport failures (connection lost, 429, 5xx, a
   * body that is not JSON). vLLM runs its engine in-process and has no such
   * failures; the simulated cluster is reached over HTTP and may inject them.
   */
  maxAttempts?: number;
  /** Longest wait for one response. */
  timeoutMs?: number;
}

export interface BatchOutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: unknown;
}

const SUPPORTED_URLS = new Set(["/v1/chat/completions"]);

interface BatchInput {
  custom_id: string;
  url: string;
  body: Record<string, unknown>;
}

function parseInputLine(text: string, line: number, file: string | undefined): BatchInput {
  const fail = (reason: string, field?: string) => new InputError(reason, { file, line, field });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail(`not valid JSON (${(error as Error).message})`);
  }
  const record = value as Partial<Record<"custom_id" | "method" | "url" | "body", unknown>> | null;
  if (typeof record !== "object" || record === null || Array.isArray(record)) throw fail("not a JSON object");
  if (typeof record.custom_id !== "string") throw fail("must be a string", "custom_id");
  if (typeof record.method !== "string") throw fail("must be a string", "method");
  if (typeof record.url !== "string") throw fail("must be a string", "url");
  if (typeof record.body !== "object" || record.body === null || Array.isArray(record.body)) throw fail("must be an object", "body");
  return { custom_id: record.custom_id, url: record.url, body: record.body as Record<string, unknown> };
}

function errorLine(customId: string, status: number, error: unknown): BatchOutputLine {
  return { id: `vllm-${randomUUID().replaceAll("-", "")}`, custom_id: customId, response: { status_code: status, request_id: `vllm-batch-${randomUUID().replaceAll("-", "")}`, body: null }, error };
}

export async function* runBatch(options: RunBatchOptions): AsyncGenerator<BatchOutputLine> {
  const concurrency = Math.max(1, options.concurrency ?? 64);
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  if (!basePath.endsWith("/v1")) throw new Error(`--url must be the server's OpenAI base URL ending in /v1, got ${options.baseUrl}`);
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  // One request per connection, over HTTP/1.1 (undici 8 would otherwise negotiate HTTP/2 with a TLS server).
  const pool = new Pool(base.origin, { connections: concurrency, pipelining: 1, allowH2: false, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const headers = { "content-type": "application/json", accept: "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) };

  const post = async (path: string, body: Record<string, unknown>): Promise<{ status: number; json: unknown }> => {
    for (let attempt = 1; ; attempt++) {
      let retryAfter: number | undefined;
      try {
        const response = await pool.request({ method: "POST", path: basePath + path, headers, body: JSON.stringify(body) });
        const text = await response.body.text();
        let json: unknown;
        let parsed = true;
        try {
          json = JSON.parse(text);
        } catch {
          parsed = false;
          json = { error: { message: `response is not JSON: ${text.slice(0, 200)}` } };
        }
        const transient = response.statusCode === 429 || response.statusCode >= 500 || (response.statusCode === 200 && !parsed);
        if (!transient || attempt >= maxAttempts) return { status: parsed || response.statusCode !== 200 ? response.statusCode : 500, json };
        const header = response.headers["retry-after"];
        retryAfter = typeof header === "string" && Number.isFinite(Number(header)) ? Number(header) : undefined;
      } catch (error) {
        if (attempt >= maxAttempts) throw error;
      }
      await sleep(backoffDelayMs(attempt, { maxAttempts, baseDelayMs: 100, maxDelayMs: 5_000 }, Math.random, retryAfter));
    }
  };

  const execute = async (request: BatchInput): Promise<BatchOutputLine> => {
    if (!SUPPORTED_URLS.has(request.url)) {
      return errorLine(request.custom_id, 400, `URL ${request.url} was used. Supported endpoints: ${[...SUPPORTED_URLS].join(", ")}.`);
    }
    if (request.body.stream === true) return errorLine(request.custom_id, 400, "Request must not be sent in stream mode");
    try {
      const { status, json } = await post(request.url.slice("/v1".length), request.body);
      if (status !== 200) return errorLine(request.custom_id, status, json);
      return { id: `vllm-${randomUUID().replaceAll("-", "")}`, custom_id: request.custom_id, response: { status_code: 200, request_id: `vllm-batch-${randomUUID().replaceAll("-", "")}`, body: json }, error: null };
    } catch (error) {
      return errorLine(request.custom_id, 400, error instanceof Error ? error.message : String(error));
    }
  };

  // Results are yielded in input order; at most `concurrency` requests are in flight or waiting to be yielded.
  const window: Promise<BatchOutputLine>[] = [];
  try {
    let counted = 0;
    for await (const item of options.input) {
      counted += 1;
      const { line, text } = typeof item === "string" ? { line: counted, text: item } : item;
      if (text.trim() === "") continue;
      window.push(execute(parseInputLine(text, line, options.file)));
      if (window.length >= concurrency) yield await window.shift()!;
    }
    while (window.length > 0) yield await window.shift()!;
  } finally {
    // A consumer that stops early (or a bad input line) must not leave requests running.
    await Promise.allSettled(window);
    await pool.close();
  }
}
