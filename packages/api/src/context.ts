import { isUserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { JobQueue } from "@stepwiser/jobs";
import { bearerToken, userFromApiToken } from "./auth/api-tokens";
import type { Auth } from "./auth/auth";
import type { SessionUser } from "./auth/session-user";
import { withClientErrors, type Context } from "./trpc";

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

/**
 * The caller of an API request (tRPC or a plain HTTP route): the owner of an
 * `Authorization: Bearer sw_…` token when one is sent, otherwise the session
 * cookie. A bearer token that resolves to nobody throws InvalidApiTokenError
 * instead of falling back to the cookie: a script whose token was revoked must
 * fail, not quietly act as whoever is signed in in the same browser profile.
 */
export async function userFromRequestHeaders(deps: Pick<ContextDeps, "db" | "auth">, headers: Headers): Promise<SessionUser | null> {
  const token = bearerToken(headers);
  if (token !== null) return userFromApiToken(deps.db, token);
  return sessionUserFromHeaders(deps.auth, headers);
}

export async function createContext(deps: ContextDeps, headers: Headers): Promise<Context> {
  // A revoked token is a 401 and a database outage a 503, as inside a procedure.
  const user = await withClientErrors(() => userFromRequestHeaders(deps, headers));
  return { db: deps.db, getQueue: deps.getQueue, user };
}
