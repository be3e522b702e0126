import { InputError, roleAtLeast, type UserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { JobQueue } from "@stepwiser/jobs";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";

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

/** The minimal role a procedure requires; "public" needs no session. Read by the role-matrix test. */
export type Access = "public" | UserRole;
export interface ProcedureMeta {
  access?: Access;
}

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const zodError = error.cause instanceof ZodError ? error.cause : undefined;
      return {
        ...shape,
        data: {
          ...shape.data,
          zodIssues: zodError?.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })) ?? null,
        },
      };
    },
  });

export const createRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Turns domain errors into client errors in one place: bad input is a 400 with its location. */
const translateErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof InputError) {
    throw new TRPCError({ code: "BAD_REQUEST", message: result.error.cause.message, cause: result.error.cause });
  }
  return result;
});

const base = t.procedure.use(translateErrors);

export const publicProcedure = base.meta({ access: "public" });

function requireRole(minimum: UserRole) {
  return t.middleware(({ ctx, next }) => {
    if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
    if (!roleAtLeast(ctx.user.role, minimum)) {
      throw new TRPCError({ code: "FORBIDDEN", message: `this needs the ${minimum} role; you are ${ctx.user.role}` });
    }
    return next({ ctx: { ...ctx, user: ctx.user } });
  });
}

/** A procedure for signed-in users holding at least `minimum`. */
export function roleProcedure(minimum: UserRole) {
  return base.meta({ access: minimum }).use(requireRole(minimum));
}

export const viewerProcedure = roleProcedure("viewer");
export const annotatorProcedure = roleProcedure("annotator");
export const researcherProcedure = roleProcedure("researcher");
export const adminProcedure = roleProcedure("admin");
