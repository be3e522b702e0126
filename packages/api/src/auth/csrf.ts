import { bearerToken } from "./api-tokens";
import type { Auth } from "./auth";

/**
 * Cross-site request forgery defence for cookie-authenticated writes.
 *
 * A browser attaches the session cookie to a request another site makes it
 * send; SameSite=Lax keeps it off cross-site POSTs only in browsers that
 * honour it and only across sites (a sibling subdomain is the same site). So
 * every state-changing request that relies on the cookie must also come from a
 * page of this app: its Origin (or, when a browser sends none, its Referer or
 * Sec-Fetch-Site) must name the app's own origin or a trusted one. Bearer
 * tokens need no such check: a browser never adds an Authorization header by
 * itself. A request with none of those headers is not from a browser (a
 * browser sends Origin or Sec-Fetch-Site on every POST), so nothing is forged.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The origins a cookie-authenticated write may come from: the app's public URL and STEPWISER_TRUSTED_ORIGINS, as sign-in uses them. */
export function trustedOriginsOf(auth: Auth): string[] {
  const options = auth.options as { baseURL?: unknown; trustedOrigins?: unknown };
  const listed = Array.isArray(options.trustedOrigins) ? options.trustedOrigins.filter((o): o is string => typeof o === "string") : [];
  const base = typeof options.baseURL === "string" ? [options.baseURL] : [];
  return [...base, ...listed].flatMap((url) => {
    const origin = originOf(url);
    return origin ? [origin] : [];
  });
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.origin === "null" ? null : parsed.origin;
  } catch {
    return null;
  }
}

/**
 * Why a request must be refused as possibly forged, or null when it may go on.
 * `trusted` are extra origins besides the request's own.
 */
export function crossSiteRefusal(request: Request, trusted: readonly string[]): string | null {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return null;
  if (bearerToken(request.headers) !== null) return null;
  if (!request.headers.get("cookie")) return null;
  const allowed = new Set([new URL(request.url).origin, ...trusted]);
  const origin = request.headers.get("origin");
  if (origin !== null) {
    return allowed.has(origin) ? null : `cross-site request refused: Origin ${origin} is not this app's origin; sign in on ${[...allowed][0]} or add the origin to STEPWISER_TRUSTED_ORIGINS`;
  }
  const referer = request.headers.get("referer");
  if (referer !== null) {
    const refererOrigin = originOf(referer);
    return refererOrigin && allowed.has(refererOrigin) ? null : `cross-site request refused: the Referer is not a page of this app (${refererOrigin ?? "unreadable"})`;
  }
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite !== null) {
    return fetchSite === "same-origin" || fetchSite === "none" ? null : `cross-site request refused: the browser says it came from a ${fetchSite} page`;
  }
  return null;
}
