import {
  callerFromRequestHeaders,
  crossSiteRefusal,
  httpErrorOf,
  importReportLinesOf,
  InvalidApiTokenError,
  openStoredFile,
  receiveUpload,
  storedFileResponse,
  methodChangesState,
  readOnlyRefusal,
  trustedOriginsOf,
  type Caller,
  type ContextDeps,
  type SessionUser,
} from "@stepwiser/api";
import { can, rolesWith, type Capability } from "@stepwiser/core";
import { MAX_IMPORT_FILE_BYTES } from "@stepwiser/jobs";
import { jsonLinesResponse } from "./json-lines-response";
import { ROUTE_ACCESS } from "./route-access";

/*
 * The file routes (`POST /api/uploads`, `GET /api/files/{id}`, `GET /api/imports/{id}/report`) as plain
 * functions of their dependencies, so they run the same under Next.js and in
 * tests. Both take a session cookie or an API token. The work is the api's
 * services' (the REST API serves the same uploads and downloads); a domain
 * error answers with the status `httpErrorOf` gives it, as plain text.
 */

type RouteDeps = Pick<ContextDeps, "db" | "auth">;

const text = (status: number, message: string) => new Response(`${message}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/** A service's domain error as its plain-text answer; anything else is thrown on (a 500). */
function refusalOf(error: unknown): Response {
  const mapped = httpErrorOf(error);
  if (!mapped) throw error;
  return text(mapped.status, mapped.message);
}

/** The caller, or the plain-text response refusing them (a read-scoped API token is refused on a method that changes state). */
async function callerWith(deps: RouteDeps, request: Request, capability: Capability, action: string): Promise<SessionUser | Response> {
  let caller: Caller | null;
  try {
    caller = await callerFromRequestHeaders(deps, request.headers);
  } catch (error) {
    if (error instanceof InvalidApiTokenError) return text(401, error.message);
    throw error;
  }
  if (!caller) return text(401, "sign in first");
  const { user } = caller;
  if (!can(user.role, capability)) return text(403, `${action} needs the ${capability} capability (roles: ${rolesWith(capability).join(", ")}); you are ${user.role}`);
  const readOnly = methodChangesState(request.method) ? readOnlyRefusal(caller.credential) : null;
  if (readOnly) return text(403, readOnly);
  return user;
}

/**
 * Stores the raw request body as an upload, part by part as it arrives
 * (`receiveUpload`). A body over the limit (declared or counted), or one that
 * is neither UTF-8 text nor a Parquet file, is refused: reading stops, the
 * request body is cancelled, and whatever parts were already written are
 * deleted with their file row. `maxBytes` is only lowered by tests.
 */
export async function handleUpload(deps: RouteDeps, request: Request, maxBytes = MAX_IMPORT_FILE_BYTES): Promise<Response> {
  const refusal = crossSiteRefusal(request, trustedOriginsOf(deps.auth));
  if (refusal) return text(403, refusal);
  const user = await callerWith(deps, request, ROUTE_ACCESS["/api/uploads"].POST, "uploading files");
  if (user instanceof Response) return user;
  try {
    const input = {
      fileName: new URL(request.url).searchParams.get("fileName"),
      contentLength: request.headers.get("content-length"),
      contentType: request.headers.get("content-type"),
      maxBytes,
      body: request.body,
    };
    return Response.json(await receiveUpload({ db: deps.db, user, input }), { status: 201 });
  } catch (error) {
    return refusalOf(error);
  }
}

/** Streams a stored file (an upload or an export's output) as an attachment. */
export async function handleDownload(deps: RouteDeps, request: Request, id: string): Promise<Response> {
  const user = await callerWith(deps, request, ROUTE_ACCESS["/api/files/[id]"].GET, "downloading files");
  if (user instanceof Response) return user;
  try {
    return storedFileResponse(await openStoredFile({ db: deps.db, user, input: { id } }));
  } catch (error) {
    return refusalOf(error);
  }
}

/**
 * An import run's report as JSON Lines (one object per record left out as
 * invalid or ignored: file, line, record, field, reason, kind), read from the
 * database page by page as the client reads the body, never held whole.
 */
export async function handleImportReportDownload(deps: RouteDeps, request: Request, runId: string): Promise<Response> {
  const user = await callerWith(deps, request, ROUTE_ACCESS["/api/imports/[id]/report"].GET, "downloading import reports");
  if (user instanceof Response) return user;
  let lines: Awaited<ReturnType<typeof importReportLinesOf>>;
  try {
    lines = await importReportLinesOf({ db: deps.db, user, input: { runId } });
  } catch (error) {
    return refusalOf(error);
  }
  return jsonLinesResponse(lines, `import-report-${runId}.jsonl`, {
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
    "cache-control": "private, no-store",
  });
}
