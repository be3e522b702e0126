import { InputError, formatLocated, TooManyRequestsError } from "@stepwiser/core";
import { ZodError, type z } from "zod";
import { readOnlyRefusal } from "../auth/caller";
import { crossSiteRefusal, trustedOriginsOf } from "../auth/csrf";
import { callerFromRequestHeaders, type ContextDeps } from "../context";
import { shortenEchoedInput } from "../error-message";
import { capabilityRefusal, DATABASE_UNREACHABLE_MESSAGE, httpErrorOf } from "../trpc";
import { defaultRequestLimits } from "../request-limits/default-limits";
import { readBoundedBody, uploadLimitOf, type RequestLimits } from "../request-limits/request-limits";
import { storedFileResponse } from "../file-download";
import { operationChangesState, REST_OPERATIONS, type BytesAnswer, type BytesBody, type RestOperation } from "./operations";
import type { errorSchema } from "./schemas";
import { apiLog } from "../log";

/** Where the operations are mounted. */
export const REST_PREFIX = "/api/v1";

type ErrorBody = z.output<typeof errorSchema>;
type ErrorCode = ErrorBody["error"]["code"];

const STATUS_OF: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

function errorResponse(code: ErrorCode, message: string, field?: string, headers: Record<string, string> = {}, status = STATUS_OF[code]): Response {
  const body: ErrorBody = { error: { code, message: shortenEchoedInput(message), ...(field ? { field } : {}) } };
  return Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });
}

/** A failure as the API's error body: bad input (zod or InputError) with its field, domain errors by `httpErrorOf`, the rest a logged 500. */
function failureResponse(error: unknown, where: string): Response {
  if (error instanceof ZodError) {
    // An unknown key is refused at its object; the field is the key itself.
    const pathOf = (issue: (typeof error.issues)[number]) => (issue.code === "unrecognized_keys" && issue.keys.length > 0 ? [...issue.path, issue.keys[0]!] : issue.path);
    const issues = error.issues.map((issue) => ({ field: pathOf(issue).map(String).join("."), message: issue.message }));
    return errorResponse("BAD_REQUEST", issues.map((i) => formatLocated(i.message, { field: i.field || undefined })).join("; "), issues[0]?.field || undefined);
  }
  const mapped = httpErrorOf(error);
  if (mapped) {
    const field = error instanceof InputError ? error.location.field : undefined;
    const code = (mapped.code in STATUS_OF ? mapped.code : "BAD_REQUEST") as ErrorCode;
    const headers: Record<string, string> = error instanceof TooManyRequestsError ? { "retry-after": String(error.retryAfterSeconds) } : {};
    return errorResponse(code, mapped.code === "SERVICE_UNAVAILABLE" ? DATABASE_UNREACHABLE_MESSAGE : mapped.message, field, headers, mapped.status);
  }
  apiLog().error({ err: error, where }, "a REST request failed");
  return errorResponse("INTERNAL_SERVER_ERROR", "the server failed to answer; the error is in its log");
}

const segmentsOf = (path: string) => path.split("/").filter(Boolean);

/** The path parameters of `path` under an operation's template, or null when it does not match. */
function matchPath(template: string, path: string): Record<string, string> | null {
  const want = segmentsOf(template);
  const got = segmentsOf(path);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const name = /^\{(\w+)\}$/.exec(want[i]!)?.[1];
    let segment: string;
    try {
      segment = decodeURIComponent(got[i]!);
    } catch {
      return null;
    }
    if (name) params[name] = segment;
    else if (want[i] !== segment) return null;
  }
  return params;
}

/** Query parameters as an object; a parameter given twice is refused by name. */
function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (key in query) throw new InputError(`is given more than once; give it once`, { field: key });
    query[key] = value;
  }
  return query;
}

async function readBody(request: Request, limits: RequestLimits): Promise<unknown> {
  const text = await readBoundedBody(request, limits);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`the request body is not JSON (${(error as Error).message}); send a JSON object with content-type application/json`);
  }
}

/** A JSON value of a service's answer as text: dates become ISO 8601 strings (their toJSON), 64-bit integers JSON numbers. */
const toJson = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? Number(v) : v));

function jsonLinesResponse(lines: AsyncGenerator<unknown>, status: number): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${toJson(next.value)}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  return new Response(body, { status, headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" } });
}

/** Which operation a method and path name: the operation with its path parameters, or the error answer. */
export function routeRestRequest(method: string, path: string, operations: readonly RestOperation[] = REST_OPERATIONS): { operation: RestOperation; params: Record<string, string> } | Response {
  const matching = operations.flatMap((operation) => {
    const params = matchPath(operation.path, path);
    return params ? [{ operation, params }] : [];
  });
  if (matching.length === 0) return errorResponse("NOT_FOUND", `no operation at ${REST_PREFIX}${path}; the operations are listed in /api/openapi.json`);
  const found = matching.find((m) => m.operation.method === method.toUpperCase());
  if (!found) {
    const allowed = [...new Set(matching.map((m) => m.operation.method))].join(", ");
    return errorResponse("METHOD_NOT_SUPPORTED", `${REST_PREFIX}${path} answers ${allowed}, not ${method.toUpperCase()}`, undefined, { allow: allowed });
  }
  return found;
}

/**
 * Serves one REST request: finds the operation, refuses cookie-authenticated
 * writes from other sites, resolves the caller (Bearer API token or session
 * cookie, as tRPC does), checks the operation's capability and, for one that
 * changes state, the token's scope, parses its inputs and calls it. `path` is the part after /api/v1.
 */
export async function handleRestRequest(request: Request, deps: ContextDeps, path: string, limits: RequestLimits = defaultRequestLimits()): Promise<Response> {
  const routed = routeRestRequest(request.method, path);
  if (routed instanceof Response) return routed;
  const { operation, params } = routed;
  const where = `${operation.method} ${operation.path}`;
  try {
    const forged = crossSiteRefusal(request, trustedOriginsOf(deps.auth));
    if (forged) return errorResponse("FORBIDDEN", forged);
    const caller = await callerFromRequestHeaders(deps, request.headers);
    const user = caller?.user ?? null;
    const refusal = capabilityRefusal(user, operation.access);
    if (refusal || !user) {
      const message = refusal?.code === "FORBIDDEN" ? refusal.message : "sign in first: send Authorization: Bearer <API token> (Settings → API tokens) or the session cookie";
      return errorResponse(refusal?.code ?? "UNAUTHORIZED", message, undefined, refusal?.code === "FORBIDDEN" ? {} : { "www-authenticate": 'Bearer realm="stepwiser"' });
    }
    const readOnly = operationChangesState(operation) ? readOnlyRefusal(caller?.credential) : null;
    if (readOnly) return errorResponse("FORBIDDEN", readOnly);
    const input = {
      params: operation.params ? operation.params.parse(params) : {},
      query: operation.query ? operation.query.parse(queryObject(new URL(request.url))) : rejectQuery(new URL(request.url)),
      body: await bodyOf(operation, request, limits),
    };
    const result = await operation.call({ db: deps.db, user, credential: caller?.credential ?? null, getQueue: deps.getQueue, input });
    if (operation.response === "jsonl") return jsonLinesResponse(result as AsyncGenerator<unknown>, operation.status);
    if (operation.response === "bytes") return storedFileResponse(result as BytesAnswer, "application/octet-stream");
    return new Response(toJson(result), { status: operation.status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
  } catch (error) {
    // A raw body refused before (or while) it was read is not read on: the client stops sending.
    if (operation.body === "bytes") await request.body?.cancel().catch(() => {});
    return failureResponse(error, where);
  }
}

/**
 * An operation's body: a JSON body read whole under the request cap and parsed
 * by its schema, or a raw body handed over unread with the upload cap, for its
 * service to stream (and refuse once it passes the cap).
 */
async function bodyOf(operation: RestOperation, request: Request, limits: RequestLimits): Promise<unknown> {
  if (!operation.body) return undefined;
  if (operation.body === "bytes") {
    const body: BytesBody = {
      stream: request.body,
      contentLength: request.headers.get("content-length"),
      contentType: request.headers.get("content-type"),
      maxBytes: uploadLimitOf(limits),
    };
    return body;
  }
  return operation.body.parse(await readBody(request, limits));
}

/** An operation without query parameters refuses any, so a misspelt option is never ignored. */
function rejectQuery(url: URL): Record<string, never> {
  const first = [...url.searchParams.keys()][0];
  if (first !== undefined) throw new InputError("is not a parameter of this operation", { field: first });
  return {};
}
