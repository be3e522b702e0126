import { REST_OPERATIONS } from "@stepwiser/api";
import type { UserRole } from "@stepwiser/core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";
import { APP_ORIGIN, type Harness } from "./route-harness";

/*
 * A script's view of the REST API in tests: requests through the real
 * catch-all route (/api/v1/[...path]) as an API token or a browser sends them,
 * every answer checked against the schema the served OpenAPI document states
 * for its operation, status and media type.
 */

export type OpenApiDocument = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
};

export interface Answer {
  status: number;
  headers: Headers;
  /** A JSON answer, parsed (null for JSON Lines and bytes). */
  body: unknown;
  /** A JSON Lines answer's lines, parsed. */
  lines: unknown[];
  /** A bytes answer's bytes. */
  bytes: Uint8Array | null;
}

export interface RequestOptions {
  /** Who sends it (default researcher); null for no one. */
  role?: UserRole | null;
  /** A JSON body (a string is sent as it is). */
  body?: unknown;
  /** A raw body (`application/octet-stream`), e.g. an upload's bytes. */
  bytes?: BodyInit;
  /** Send the role's session cookie (and this app's Origin) instead of its API token. */
  cookie?: boolean;
  /** An API token instead of the role's. */
  token?: string;
  headers?: Record<string, string>;
}

export interface RestClient {
  document: OpenApiDocument;
  /** Operations whose success answer (`METHOD path status`) was checked against the document. */
  covered: Set<string>;
  validatorOf(ref: string): ReturnType<Ajv2020["getSchema"]> & object;
  api(method: "GET" | "POST", path: string, options?: RequestOptions): Promise<Answer>;
}

export const errorOf = (answer: Answer) => (answer.body as { error: { code: string; message: string; field?: string } }).error;

/** Reads the served document (with no one signed in) and answers requests checked against it. */
export async function restClient(harness: Harness): Promise<RestClient> {
  const served = await harness.call("/api/openapi.json", "GET", new Request(`${APP_ORIGIN}/api/openapi.json`));
  expect(served.status).toBe(200);
  const document = (await served.json()) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, "openapi.json");
  const covered = new Set<string>();

  const operationOf = (method: string, path: string) => {
    const bare = path.split("?")[0]!;
    return REST_OPERATIONS.find((o) => o.method === method && new RegExp(`^${o.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(bare));
  };
  const validatorOf = (ref: string) => ajv.getSchema(`openapi.json${ref}`)!;

  /** The media type and schema the document gives for the operation's answer at `status` (a path no operation has: the error schema). */
  const documented = (method: string, path: string, status: number, contentType: string) => {
    const op = operationOf(method, path);
    if (!op) return { op, media: "application/json", schema: { $ref: "#/components/schemas/Error" } };
    const responses = document.paths[op.path]![method.toLowerCase()]!.responses;
    const response = responses[String(status)] ?? responses.default;
    expect(response, `${method} ${op.path} documents status ${status}`).toBeDefined();
    const media = contentType.split(";")[0]!.trim();
    const content = response!.content?.[media];
    expect(content, `${method} ${op.path} ${status} documents ${media}`).toBeDefined();
    return { op, media, schema: content!.schema as { $ref?: string } | undefined };
  };

  const expectDocumented = (method: string, path: string, status: number, contentType: string, value: unknown) => {
    const { op, schema } = documented(method, path, status, contentType);
    const validate = validatorOf(schema!.$ref!);
    expect(validate(value), `${method} ${path} ${status}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(value).slice(0, 600)}`).toBe(true);
    if (op) covered.add(`${op.method} ${op.path} ${status}`);
  };

  const api: RestClient["api"] = async (method, path, options = {}) => {
    const role = options.role === undefined ? "researcher" : options.role;
    const headers = new Headers(options.headers);
    if (role && options.cookie) {
      headers.set("cookie", harness.cookies.get(role)!);
      if (!headers.has("origin")) headers.set("origin", APP_ORIGIN);
    } else if (options.token) headers.set("authorization", `Bearer ${options.token}`);
    else if (role) headers.set("authorization", `Bearer ${harness.tokens.get(role)}`);
    let body: BodyInit | undefined;
    if (options.bytes !== undefined) {
      if (!headers.has("content-type")) headers.set("content-type", "application/octet-stream");
      body = options.bytes;
    } else if (options.body !== undefined) {
      headers.set("content-type", "application/json");
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    }
    const request = new Request(`${APP_ORIGIN}/api/v1${path}`, { method, headers, body, duplex: "half" } as RequestInit);
    const segments = path.split("?")[0]!.split("/").filter(Boolean).map(decodeURIComponent);
    const response = await harness.call("/api/v1/[...path]", method, request, { path: segments });
    const contentType = response.headers.get("content-type") ?? "";
    const answer: Answer = { status: response.status, headers: response.headers, body: null, lines: [], bytes: null };
    if (contentType.startsWith("application/octet-stream")) {
      documented(method, path, response.status, contentType);
      const op = operationOf(method, path);
      if (op) covered.add(`${op.method} ${op.path} ${response.status}`);
      return { ...answer, bytes: new Uint8Array(await response.arrayBuffer()) };
    }
    const text = await response.text();
    if (contentType.startsWith("application/x-ndjson")) {
      const lines = text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as unknown);
      for (const line of lines) expectDocumented(method, path, response.status, contentType, line);
      // An empty download still has its documented media type.
      if (lines.length === 0) {
        const { op } = documented(method, path, response.status, contentType);
        if (op) covered.add(`${op.method} ${op.path} ${response.status}`);
      }
      return { ...answer, lines };
    }
    const parsed = JSON.parse(text) as unknown;
    if (response.status !== 405) expectDocumented(method, path, response.status, contentType, parsed);
    return { ...answer, body: parsed };
  };

  return { document, covered, validatorOf, api };
}
