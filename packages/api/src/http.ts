import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext, type ContextDeps } from "./context";
import { appRouter } from "./root";

/** Serves the tRPC API over the Fetch API (Next.js route handlers, tests). */
export function handleTrpcRequest(request: Request, deps: ContextDeps, endpoint = "/api/trpc") {
  return fetchRequestHandler({
    endpoint,
    req: request,
    router: appRouter,
    createContext: () => createContext(deps, request.headers),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[api] ${path ?? "?"}: ${error.message}`, error.cause);
    },
  });
}
