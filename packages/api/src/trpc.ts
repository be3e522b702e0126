import {
  can,
  ConflictError,
  ForbiddenError,
  formatLocated,
  InputError,
  NotFoundError,
  PayloadTooLargeError,
  rolesWith,
  TooManyRequestsError,
  UnsupportedContentError,
  type Access,
  type Capability,
} from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { isDatabaseConnectionError, type JobQueue } from "@stepwiser/jobs";
import { initTRPC, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import superjson from "superjson";
import { ZodError, type z } from "zod";
import { InvalidApiTokenError } from "./auth/api-tokens";
import { readOnlyRefusal, type Credential } from "./auth/caller";
import type { SessionUser } from "./auth/session-user";
import { shortenEchoedInput } from "./error-message";
import { assertQueueMember, queueRefOf, type QueueRef } from "./services/annotation-queue/membership";

export type { Credential, SessionUser };

export interface Context {
  db: Db;
  user: SessionUser | null;
  /**
   * How `user` authenticated (their session, or an API token and its scope); null when anonymous.
   * Callers inside the server (tests, the command line) leave it out and act with their role alone.
   */
  credential?: Credential | null;
  /** Job queue handle for procedures that launch runs; opened lazily by the host. */
  getQueue: () => Promise<JobQueue>;
}

/** The one access tier a procedure declares ("public" or a capability). Read by the role-matrix test. */
export type { Access };
export interface ProcedureMeta {
  access?: Access;
}

export const DATABASE_UNREACHABLE_MESSAGE = "The database cannot be reached right now; try again in a moment.";

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const zodError = error.cause instanceof ZodError ? error.cause : undefined;
      const zodIssues = zodError?.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })) ?? null;
      // Input errors read like domain errors (`field "pageSize": …`), not as the issues' JSON.
      const message = zodIssues
        ? zodIssues.map((i) => formatLocated(i.message, { field: i.path })).join("; ")
        : // A database outage reads as one, not as the query and code frame the driver reports.
          isDatabaseConnectionError(error.cause)
          ? DATABASE_UNREACHABLE_MESSAGE
          : shape.message;
      return {
        ...shape,
        message: shortenEchoedInput(message),
        data: { ...shape.data, zodIssues },
      };
    },
  });

export const createRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * The one place domain errors become statuses: bad input is a 400 with its
 * location, a missing thing 404, a clash with the current state 409, someone
 * else's thing 403, a revoked API token 401, a body too large 413, content the
 * server does not take 415.
 */
const CLIENT_ERROR_CODES = [
  [InputError, "BAD_REQUEST"],
  [NotFoundError, "NOT_FOUND"],
  [ConflictError, "CONFLICT"],
  [ForbiddenError, "FORBIDDEN"],
  [InvalidApiTokenError, "UNAUTHORIZED"],
  [PayloadTooLargeError, "PAYLOAD_TOO_LARGE"],
  [TooManyRequestsError, "TOO_MANY_REQUESTS"],
  [UnsupportedContentError, "UNSUPPORTED_MEDIA_TYPE"],
] as const;

/** The client error a failure stands for (a database outage: 503, which clients and balancers retry), or undefined when it is none of ours: tRPC answers 500. */
export function clientErrorOf(error: unknown): TRPCError | undefined {
  const code = CLIENT_ERROR_CODES.find(([type]) => error instanceof type)?.[1];
  if (code) return new TRPCError({ code, message: (error as Error).message, cause: error });
  if (isDatabaseConnectionError(error)) return new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_UNREACHABLE_MESSAGE, cause: error });
  return undefined;
}

/** The HTTP answer a failure stands for (status, tRPC's code name, message), by `clientErrorOf`; undefined when it is none of ours (a 500). Plain HTTP routes answer with it. */
export function httpErrorOf(error: unknown): { status: number; code: TRPCError["code"]; message: string } | undefined {
  const mapped = clientErrorOf(error);
  return mapped && { status: getHTTPStatusCodeFromError(mapped), code: mapped.code, message: mapped.message };
}

/** Why `user` may not use `capability` (signed out, or a role without it), or null when they may. */
export function capabilityRefusal(user: SessionUser | null, capability: Capability): { code: "UNAUTHORIZED" | "FORBIDDEN"; message: string } | null {
  if (!user) return { code: "UNAUTHORIZED", message: "sign in first" };
  if (!can(user.role, capability)) {
    return { code: "FORBIDDEN", message: `this needs the ${capability} capability (roles: ${rolesWith(capability).join(", ")}); you are ${user.role}` };
  }
  return null;
}

/** Runs `work` (e.g. resolving a request's caller, outside any procedure) with its failures mapped by `clientErrorOf`. */
export async function withClientErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw clientErrorOf(error) ?? error;
  }
}

/** Maps what a procedure (or a tier's check) throws, once for every procedure. */
const translateErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === "INTERNAL_SERVER_ERROR") {
    const mapped = clientErrorOf(result.error.cause);
    if (mapped) throw mapped;
  }
  return result;
});

/** A read-scoped API token calls queries only: every mutation refuses it, whatever its tier. */
const refuseReadOnlyMutations = t.middleware(({ ctx, type, next }) => {
  const refusal = type === "query" ? null : readOnlyRefusal(ctx.credential);
  if (refusal) throw new TRPCError({ code: "FORBIDDEN", message: refusal });
  return next();
});

const base = t.procedure.use(translateErrors).use(refuseReadOnlyMutations);

export const publicProcedure = base.meta({ access: "public" });

function requireCapability(capability: Capability) {
  return t.middleware(({ ctx, next }) => {
    const refusal = capabilityRefusal(ctx.user, capability);
    if (refusal || !ctx.user) throw new TRPCError(refusal ?? { code: "UNAUTHORIZED", message: "sign in first" });
    return next({ ctx: { ...ctx, user: ctx.user } });
  });
}

/** A procedure for signed-in users whose role grants `capability`. */
export function capabilityProcedure(capability: Capability) {
  return base.meta({ access: capability }).use(requireCapability(capability));
}

export const accountProcedure = capabilityProcedure("account");
export const researchReadProcedure = capabilityProcedure("research.read");
export const researchManageProcedure = capabilityProcedure("research.manage");
/** Queue procedures that name no one queue (the list, creating one); those that do are `queueMemberProcedure`s. */
export const queueViewProcedure = capabilityProcedure("annotationQueues.view");
export const queueAnnotateProcedure = capabilityProcedure("annotationQueues.annotate");
export const queueManageProcedure = capabilityProcedure("annotationQueues.manage");
export const userAdminProcedure = capabilityProcedure("users.manage");
export const endpointAdminProcedure = capabilityProcedure("endpoints.manage");

/**
 * A procedure on one annotation queue, for callers whose role grants
 * `capability`. Once its input is parsed, a caller limited to member queues
 * (no `annotationQueues.all`) is refused with the not-found answer of what
 * the input names unless they are a member of its queue: the queue of
 * `queueId`, or of the assignment or item it names. The tier recorded in the
 * metadata stays `capability`.
 */
export function queueMemberProcedure(capability: Capability) {
  const tier = capabilityProcedure(capability);
  return {
    input: <Schema extends z.ZodType<QueueRef>>(schema: Schema) =>
      tier.input(schema).use(async ({ ctx, input, next }) => {
        await assertQueueMember(ctx.db, ctx.user, queueRefOf(input));
        return next();
      }),
  };
}
