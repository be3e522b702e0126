import { ForbiddenError } from "@stepwiser/core";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { crossSiteRefusal, trustedOriginsOf } from "./auth/csrf";
import { createContext, type ContextDeps } from "./context";
import { defaultRequestLimits } from "./request-limits/default-limits";
import { readBoundedBody, type RequestLimits } from "./request-limits/request-limits";
import { appRouter } from "./root";
import { clientErrorOf, withClientErrors } from "./trpc";
import { apiLog } from "./log";

/**
 * Serves the tRPC API over the Fetch API (Next.js route handlers, tests).
 * Mutations (POST) sent with the session cookie from another site's page are refused with 403.
 * A POST body is read here, bounded by `limits` (413 past the cap, 400 past the JSON depth), before tRPC parses it.
 */
export async function handleTrpcRequest(request: Request, deps: ContextDeps, endpoint = "/api/trpc", limits: RequestLimits = defaultRequestLimits()) {
  let bounded = request;
  if (request.method === "POST") {
    try {
      const body = await readBoundedBody(request, limits);
      bounded = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
    } catch (error) {
      const mapped = clientErrorOf(error);
      if (!mapped) throw error;
      return trpcErrorResponse(request, endpoint, mapped);
    }
  }
  return fetchRequestHandler({
    endpoint,
    req: bounded,
    router: appRouter,
    createContext: () =>
      withClientErrors(async () => {
        const refusal = crossSiteRefusal(request, trustedOriginsOf(deps.auth));
        if (refusal) throw new ForbiddenError(refusal);
        return createContext(deps, request.headers);
      }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") apiLog().error({ err: error.cause ?? error, path: path ?? null }, error.message);
    },
  });
}

/**
 * A refusal before tRPC ran, in tRPC's own error shape (superjson-wrapped, one entry per procedure of a batch), so
 * clients show its message as they show any procedure error.
 */
function trpcErrorResponse(request: Request, endpoint: string, error: TRPCError): Response {
  const url = new URL(request.url);
  const paths = decodeURIComponent(url.pathname.slice(url.pathname.indexOf(endpoint) + endpoint.length).replace(/^\//, "")).split(",");
  const status = getHTTPStatusCodeFromError(error);
  const entry = (path: string) => ({
    error: { json: { message: error.message, code: TRPC_ERROR_CODES_BY_KEY[error.code], data: { code: error.code, httpStatus: status, path } } },
  });
  const body = url.searchParams.get("batch") === "1" ? paths.map(entry) : entry(paths[0] ?? "");
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
