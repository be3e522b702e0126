import { expect, type APIRequestContext } from "@playwright/test";
import config from "../playwright.config";

export const APP_ORIGIN = new URL(config.use!.baseURL!).origin;

/**
 * The app's tRPC procedures over plain HTTP (superjson envelope, no batching),
 * with the cookies of the given request context: what the browser's client
 * sends, for setting up data faster than through forms.
 */

async function unwrap<T>(path: string, response: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  const body = await response.text();
  if (!response.ok()) throw new Error(`${path}: HTTP ${response.status()}: ${body.slice(0, 500)}`);
  return (JSON.parse(body) as { result: { data: { json: T } } }).result.data.json;
}

export async function query<T = unknown>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const response = await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  return unwrap<T>(path, response);
}

export async function mutate<T = unknown>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const response = await request.post(`/api/trpc/${path}`, { data: { json: input } });
  return unwrap<T>(path, response);
}

/** Signs a request context in through the real auth endpoint (its cookie jar keeps the session). */
export async function signInRequest(request: APIRequestContext, email: string, password: string): Promise<void> {
  // A browser sends its origin with the form post; the auth endpoint checks it.
  const response = await request.post("/api/auth/sign-in/email", { data: { email, password }, headers: { origin: APP_ORIGIN } });
  expect(response.status(), `sign-in of ${email}: ${await response.text()}`).toBe(200);
}

/** Uploads bytes as a file (`POST /api/uploads`) and returns its id. */
export async function upload(request: APIRequestContext, fileName: string, content: string): Promise<string> {
  const response = await request.post(`/api/uploads?fileName=${encodeURIComponent(fileName)}`, {
    data: Buffer.from(content, "utf8"),
    headers: { "content-type": "application/x-ndjson" },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { fileId: string }).fileId;
}

export interface RunState {
  id: string;
  status: string;
  datasetId: string | null;
  error?: string | null;
}

const TERMINAL = new Set(["completed", "failed", "cancelled", "completed_with_failures"]);

/** Polls a run until it ends; fails the test unless it completed. */
export async function waitForRun(request: APIRequestContext, runId: string, timeoutMs = 90_000): Promise<RunState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await query<RunState>(request, "run.get", { id: runId });
    if (TERMINAL.has(run.status)) {
      expect(run.status, `run ${runId}: ${JSON.stringify(run).slice(0, 800)}`).toBe("completed");
      return run;
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
