import { ForbiddenError } from "@stepwiser/core";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { crossSiteRefusal, trustedOriginsOf } from "./auth/csrf";
import { createContext, type ContextDeps } from "./context";
import { appRouter } from "./root";
import { withClientErrors } from "./trpc";

/**
 * Serves the tRPC API over the Fetch API (Next.js route handlers, tests).
 * Mutations (POST) sent with the session cookie from another site's page are refused with 403.
 */
export function handleTrpcRequest(request: Request, deps: ContextDeps, endpoint = "/api/trpc") {
  return fetchRequestHandler({
    endpoint,
    req: request,
    router: appRouter,
    createContext: () =>
      withClientErrors(async () => {
        const refusal = crossSiteRefusal(request, trustedOriginsOf(deps.auth));
        if (refusal) throw new ForbiddenError(refusal);
        return createContext(deps, request.headers);
      }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[api] ${path ?? "?"}: ${error.message}`, error.cause);
    },
  });
}
