import { isUserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { JobQueue } from "@stepwiser/jobs";
import { bearerToken } from "./auth/api-tokens";
import { callerFromThrottledToken } from "./auth/token-throttle";
import type { Auth } from "./auth/auth";
import type { Caller } from "./auth/caller";
import type { SessionUser } from "./auth/session-user";
import { withClientErrors, type Context } from "./trpc";

export interface ContextDeps {
  db: Db;
  auth: Auth;
  getQueue: () => Promise<JobQueue>;
}

/** Resolves the caller from the session cookie; unknown or expired sessions, and those of a disabled account, are anonymous. */
export async function sessionUserFromHeaders(auth: Auth, headers: Headers): Promise<SessionUser | null> {
  return (await callerFromSession(auth, headers))?.user ?? null;
}

/** The signed-in caller of a session cookie and their session's id, or null (no session, or a disabled account's). */
export async function callerFromSession(auth: Auth, headers: Headers): Promise<Caller | null> {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  const { role, disabledAt } = session.user as { role?: unknown; disabledAt?: unknown };
  // Disabling deletes the account's sessions; this refuses one that slipped past (e.g. created at the same moment).
  if (disabledAt !== null && disabledAt !== undefined) return null;
  return {
    user: {
      id: session.user.id,
      email: session.user.email,
      name: session.user.name,
      role: isUserRole(role) ? role : "viewer",
    },
    credential: { kind: "session", sessionId: session.session.id },
  };
}

/**
 * The caller of an API request (tRPC, REST or a plain HTTP route) and how they
 * authenticated: the owner of an `Authorization: Bearer sw_…` token when one
 * is sent, otherwise the session cookie. A bearer token that resolves to
 * nobody throws InvalidApiTokenError instead of falling back to the cookie: a
 * script whose token was revoked must fail, not quietly act as whoever is
 * signed in in the same browser profile.
 */
export async function callerFromRequestHeaders(deps: Pick<ContextDeps, "db" | "auth">, headers: Headers): Promise<Caller | null> {
  const token = bearerToken(headers);
  if (token !== null) return callerFromThrottledToken(deps.db, token);
  return callerFromSession(deps.auth, headers);
}

/** The user of `callerFromRequestHeaders`, for routes that need no more. */
export async function userFromRequestHeaders(deps: Pick<ContextDeps, "db" | "auth">, headers: Headers): Promise<SessionUser | null> {
  return (await callerFromRequestHeaders(deps, headers))?.user ?? null;
}

export async function createContext(deps: ContextDeps, headers: Headers): Promise<Context> {
  // A revoked token is a 401 and a database outage a 503, as inside a procedure.
  const caller = await withClientErrors(() => callerFromRequestHeaders(deps, headers));
  return { db: deps.db, getQueue: deps.getQueue, user: caller?.user ?? null, credential: caller?.credential ?? null };
}
