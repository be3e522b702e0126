import type { Access } from "@stepwiser/core";

/** Methods a route handler file may export. */
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A route whose callers are checked per tRPC procedure, by the procedure's own tier. */
export const PER_PROCEDURE = "per procedure";
/** A route whose callers are checked per REST operation, by the operation's own capability (packages/api/src/rest/operations.ts). */
export const PER_OPERATION = "per operation";

/**
 * The access of every route handler under `app/api`, keyed by its path as the
 * file system names it. The handlers read their access from here, and the role
 * matrix test finds every `route.ts` and fails on a route or method missing.
 */
export const ROUTE_ACCESS = {
  "/api/auth/[...all]": { GET: "public", POST: "public" },
  "/api/files/[id]": { GET: "research.manage" },
  "/api/health": { GET: "public" },
  "/api/imports/[id]/report": { GET: "research.read" },
  "/api/annotation-queues/[id]/labels": { GET: "annotationQueues.manage" },
  "/api/openapi.json": { GET: "public" },
  "/api/trpc/[trpc]": { GET: PER_PROCEDURE, POST: PER_PROCEDURE },
  "/api/uploads": { POST: "research.manage" },
  "/api/v1/[...path]": { GET: PER_OPERATION, POST: PER_OPERATION },
} as const satisfies Record<string, Partial<Record<HttpMethod, Access | typeof PER_PROCEDURE | typeof PER_OPERATION>>>;
