import { isUserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { JobQueue } from "@stepwiser/jobs";
import type { Auth } from "./auth/auth";
import type { Context, SessionUser } from "./trpc";

export interface ContextDeps {
  db: Db;
  auth: Auth;
  getQueue: () => Promise<JobQueue>;
}

/** Resolves the caller from the session cookie; unknown or expired sessions are anonymous. */
export async function sessionUserFromHeaders(auth: Auth, headers: Headers): Promise<SessionUser | null> {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  const role = (session.user as { role?: unknown }).role;
  return {
    id: session.user.id,
    email: session.user.email,
    name: session.user.name,
    role: isUserRole(role) ? role : "viewer",
  };
}

export async function createContext(deps: ContextDeps, headers: Headers): Promise<Context> {
  return { db: deps.db, getQueue: deps.getQueue, user: await sessionUserFromHeaders(deps.auth, headers) };
}
