import { AsyncLocalStorage } from "node:async_hooks";
import { BlockList, isIP } from "node:net";

/*
 * Who sent a request, as the web server saw it. The HTTP server (apps/web/server.ts) resolves the client address from
 * the socket (and, only behind proxies named in STEPWISER_TRUSTED_PROXIES, from X-Forwarded-For) and runs the request
 * inside `requestOrigins`, so code serving the request reads an address the client cannot choose. No header carries it
 * to that code: a header can be sent by anyone who reaches the app directly.
 *
 * This file imports nothing but Node's own modules: the HTTP server loads it directly, and the app's bundle loads its
 * own copy; both reach the same store through a global symbol.
 */

export interface RequestOrigin {
  /** The client's address (IPv4 dotted, IPv6 compressed, an IPv4-mapped IPv6 address as IPv4). */
  clientAddress: string;
}

/**
 * The header the HTTP server sets to the client address it resolved, replacing any the client sent, for libraries that
 * can only read an address from a header (better-auth's general rate limit). The studio's own code reads
 * `currentClientAddress()`.
 */
export const CLIENT_ADDRESS_HEADER = "x-stepwiser-client-address";

/** What `clientAddress` is where no HTTP server of ours resolved one (a request built in a test, a handler called in-process). */
export const UNKNOWN_CLIENT_ADDRESS = "unknown";

const STORE_KEY = Symbol.for("stepwiser.requestOrigins");

/** The per-request store the HTTP server fills. */
export function requestOrigins(): AsyncLocalStorage<RequestOrigin> {
  const holder = globalThis as { [STORE_KEY]?: AsyncLocalStorage<RequestOrigin> };
  holder[STORE_KEY] ??= new AsyncLocalStorage<RequestOrigin>();
  return holder[STORE_KEY];
}

/** The address of the client of the request being served, or UNKNOWN_CLIENT_ADDRESS outside one. */
export function currentClientAddress(): string {
  return requestOrigins().getStore()?.clientAddress ?? UNKNOWN_CLIENT_ADDRESS;
}

/** `::ffff:10.0.0.1` → `10.0.0.1`; anything else as given (trimmed), or null when it is not an IP address. */
export function normalizeAddress(address: string | undefined | null): string | null {
  if (!address) return null;
  let value = address.trim();
  // "[::1]:443" or "10.0.0.1:443" as some proxies write X-Forwarded-For entries.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(value);
  if (mapped) value = mapped[1]!;
  return isIP(value) ? value.toLowerCase() : null;
}

/** The proxies whose X-Forwarded-For entries are believed. */
export interface TrustedProxies {
  readonly list: BlockList;
  /** As configured, for messages. */
  readonly cidrs: readonly string[];
}

/**
 * Parses STEPWISER_TRUSTED_PROXIES: comma-separated CIDRs (`10.0.0.0/8, 2001:db8::/32`) or single addresses. Empty
 * means none: the socket address is the client. A bad entry throws, naming it, so a typo never silently trusts nothing
 * (or everything).
 */
export function parseTrustedProxies(value: string | undefined, variable = "STEPWISER_TRUSTED_PROXIES"): TrustedProxies | null {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [base, prefixText, extra] = entry.split("/");
    const address = normalizeAddress(base);
    const family = address ? (isIP(address) === 4 ? "ipv4" : "ipv6") : null;
    const maxPrefix = family === "ipv4" ? 32 : 128;
    const prefix = prefixText === undefined ? maxPrefix : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (!address || !family || extra !== undefined || !(prefix >= 0 && prefix <= maxPrefix)) {
      throw new Error(`${variable}: "${entry}" is not an IP address or CIDR block (e.g. 10.0.0.0/8 or 2001:db8::/32)`);
    }
    list.addSubnet(address, prefix, family);
  }
  return { list, cidrs: entries };
}

function isTrusted(address: string, trusted: TrustedProxies): boolean {
  return trusted.list.check(address, isIP(address) === 4 ? "ipv4" : "ipv6");
}

/**
 * The client address of a request that arrived from `socketAddress` carrying `forwardedFor` (X-Forwarded-For, all its
 * values). Without trusted proxies, or when the socket peer is not one of them, it is the socket address: a client
 * chooses its header, not its socket. From a trusted proxy it is the right-most X-Forwarded-For entry that is not a
 * trusted proxy (each proxy appends the address it saw), or the left-most entry when all of them are trusted. An
 * entry that is not an address ends the walk there: what lies left of it was written by the client.
 */
export function resolveClientAddress(socketAddress: string | undefined, forwardedFor: string | readonly string[] | undefined, trusted: TrustedProxies | null): string {
  const peer = normalizeAddress(socketAddress) ?? UNKNOWN_CLIENT_ADDRESS;
  if (!trusted || peer === UNKNOWN_CLIENT_ADDRESS || !isTrusted(peer, trusted)) return peer;
  const header = typeof forwardedFor === "string" ? forwardedFor : (forwardedFor ?? []).join(",");
  const hops = header
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]);
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return client;
}
