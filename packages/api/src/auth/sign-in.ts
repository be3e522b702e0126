import { PayloadTooLargeError, TooManyRequestsError, InputError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { currentClientAddress } from "../request-origin/request-origin";
import { readBoundedBody } from "../request-limits/request-limits";
import type { Auth } from "./auth";
import { addressBucketOf, claimAccountAttempt, clearBucket, countAttempt } from "./throttle";

/** An auth request (a sign-in is a few hundred bytes) may send this much. */
export const AUTH_BODY_LIMIT_BYTES = 64 * 1024;
const AUTH_JSON_DEPTH = 8;

export interface AuthRequestOptions {
  /** The client's address; by default the one the HTTP server resolved for the request being served. */
  clientAddress?: string;
}

/**
 * Serves /api/auth/*: better-auth does the work; this puts the throttles in front of email sign-in (see ./throttle):
 * per client address (as the HTTP server resolved it, never as a header claims it) and per account, both counted in
 * the database. Every auth body is bounded. Answers 429 with Retry-After, 413 past the body cap.
 */
export async function handleAuthRequest(request: Request, deps: { auth: Auth; db: Db }, options: AuthRequestOptions = {}): Promise<Response> {
  if (request.method !== "POST") return deps.auth.handler(request);
  try {
    const body = await readBoundedBody(request, { maxBodyBytes: AUTH_BODY_LIMIT_BYTES, maxJsonDepth: AUTH_JSON_DEPTH });
    const forwarded = new Request(request.url, { method: "POST", headers: request.headers, body, signal: request.signal });
    if (!new URL(request.url).pathname.endsWith("/sign-in/email")) return await deps.auth.handler(forwarded);

    const address = addressBucketOf(options.clientAddress ?? currentClientAddress());
    await countAttempt(deps.db, `sign-in:address:${address}`, deps.auth.stepwiser.signInAttemptsPerMinute, 60, "too many sign-in attempts from this address");
    const account = `sign-in:account:${emailOf(body)}`;
    await claimAccountAttempt(deps.db, account, "too many failed sign-ins for this account");
    const response = await deps.auth.handler(forwarded);
    if (response.ok) await clearBucket(deps.db, account);
    return response;
  } catch (error) {
    if (error instanceof TooManyRequestsError) {
      return Response.json({ code: "TOO_MANY_REQUESTS", message: error.message }, { status: 429, headers: { "retry-after": String(error.retryAfterSeconds), "cache-control": "no-store" } });
    }
    if (error instanceof PayloadTooLargeError) return Response.json({ code: "PAYLOAD_TOO_LARGE", message: error.message }, { status: 413 });
    if (error instanceof InputError) return Response.json({ code: "BAD_REQUEST", message: error.message }, { status: 400 });
    throw error;
  }
}

/** The account a sign-in names, as better-auth matches it (lower case); "" when the body names none. */
function emailOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { email?: unknown };
    return typeof parsed.email === "string" ? parsed.email.trim().toLowerCase() : "";
  } catch {
    return "";
  }
}
