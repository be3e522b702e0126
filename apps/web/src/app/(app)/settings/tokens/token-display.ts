import { apiTokenState, relativeTime, type ApiTokenScope, type ApiTokenState } from "@stepwiser/core";

/** What the tokens list shows of a token's life: its state, and when it expires or expired. */
export function tokenLifeOf(token: { revokedAt: Date | null; expiresAt: Date }, now: Date): { state: ApiTokenState; expiry: string } {
  const state = apiTokenState(token, now);
  const when = relativeTime(token.expiresAt, now);
  return { state, expiry: state === "expired" ? `expired ${when}` : when };
}

/** A scope as the page names it. */
export const SCOPE_LABELS: Record<ApiTokenScope, string> = {
  read: "read (queries and downloads only)",
  "read-write": "read-write (may also change things)",
};
