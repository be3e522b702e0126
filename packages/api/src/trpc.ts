import { can, formatLocated, InputError, rolesWith, type Access, type Capability, type UserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { isDatabaseConnectionError, type JobQueue } from "@stepwiser/jobs";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { shortenEchoedInput } from "./error-message";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: UserRole;
}

export interface Context {
  db: Db;
  user: SessionUser | null;
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
 * Turns domain errors into client errors in one place: bad input is a 400 with
 * its location; a database outage is a 503, which clients and balancers retry.
 */
const translateErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof InputError) {
    throw new TRPCError({ code: "BAD_REQUEST", message: result.error.cause.message, cause: result.error.cause });
  }
  if (!result.ok && result.error.code === "INTERNAL_SERVER_ERROR" && isDatabaseConnectionError(result.error.cause)) {
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_UNREACHABLE_MESSAGE, cause: result.error.cause });
  }
  return result;
});

const base = t.procedure.use(translateErrors);

export const publicProcedure = base.meta({ access: "public" });

function requireCapability(capability: Capability) {
  return t.middleware(({ ctx, next }) => {
    if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
    if (!can(ctx.user.role, capability)) {
      throw new TRPCError({ code: "FORBIDDEN", message: `this needs the ${capability} capability (roles: ${rolesWith(capability).join(", ")}); you are ${ctx.user.role}` });
    }
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
/** Queue procedures: annotators pass the tier but each handler still limits them to their member queues. */
export const queueViewProcedure = capabilityProcedure("annotationQueues.view");
export const queueAnnotateProcedure = capabilityProcedure("annotationQueues.annotate");
export const queueManageProcedure = capabilityProcedure("annotationQueues.manage");
export const userAdminProcedure = capabilityProcedure("users.manage");
export const endpointAdminProcedure = capabilityProcedure("endpoints.manage");
