/**
 * What an API token may do. "read" tokens call queries and GET operations only;
 * "read-write" tokens may also change state (mutations, POST operations, uploads),
 * within their owner's role either way.
 */
export const API_TOKEN_SCOPES = ["read", "read-write"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];
/** New tokens without a chosen scope, and every token made before scopes existed. */
export const DEFAULT_API_TOKEN_SCOPE: ApiTokenScope = "read-write";

export function isApiTokenScope(value: unknown): value is ApiTokenScope {
  return typeof value === "string" && (API_TOKEN_SCOPES as readonly string[]).includes(value);
}

/** The lifetimes offered when a token is made, in days. */
export const API_TOKEN_LIFETIME_CHOICES_DAYS = [7, 30, 90, 365] as const;
export const DEFAULT_API_TOKEN_LIFETIME_DAYS = 90;
export const MAX_API_TOKEN_LIFETIME_DAYS = 365;

const DAY_MS = 24 * 60 * 60 * 1000;

/** When a token made at `now` to last `days` days expires. */
export function apiTokenExpiry(days: number, now: Date): Date {
  if (!Number.isInteger(days) || days < 1 || days > MAX_API_TOKEN_LIFETIME_DAYS) {
    throw new RangeError(`a token lasts 1 to ${MAX_API_TOKEN_LIFETIME_DAYS} whole days, not ${days}`);
  }
  return new Date(now.getTime() + days * DAY_MS);
}

export type ApiTokenState = "active" | "expired" | "revoked";

/** Whether a token still works at `now`; a revoked token reads as revoked even once past its expiry. */
export function apiTokenState(token: { revokedAt: Date | null; expiresAt: Date }, now: Date): ApiTokenState {
  if (token.revokedAt) return "revoked";
  return token.expiresAt.getTime() <= now.getTime() ? "expired" : "active";
}

/** "in 3 days", "in 5 hours", "2 days ago": how far `date` is from `now`, in the largest whole unit. */
export function relativeTime(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  const abs = Math.abs(ms);
  const units: Array<[string, number]> = [
    ["day", DAY_MS],
    ["hour", 60 * 60 * 1000],
    ["minute", 60 * 1000],
  ];
  const [unit, size] = units.find(([, size]) => abs >= size) ?? ["minute", 60 * 1000];
  const count = Math.max(1, Math.floor(abs / size));
  const amount = `${count} ${unit}${count === 1 ? "" : "s"}`;
  return ms >= 0 ? `in ${amount}` : `${amount} ago`;
}
