import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@stepwiser/db";
import type { SessionUser } from "./session-user";

/** Marks our tokens so secret scanners and people can tell them apart from other credentials. */
export const API_TOKEN_PREFIX = "sw_";
const TOKEN_BYTES = 32;
/** "sw_" and 8 characters: enough to tell tokens apart in a list, 48 of the token's 256 random bits. */
const DISPLAY_PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;
const TOKEN_SHAPE = /^sw_[A-Za-z0-9_-]{43}$/;
/** `lastUsedAt` is a hint for spotting unused tokens, not a log: one write a minute per token is enough. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const INVALID_API_TOKEN_MESSAGE = "API token is invalid or revoked";

/** A request's bearer token matched no live token. Each surface turns it into its own 401. */
export class InvalidApiTokenError extends Error {
  constructor() {
    super(INVALID_API_TOKEN_MESSAGE);
    this.name = "InvalidApiTokenError";
  }
}

export interface NewApiToken {
  /** Shown to its owner once; only the hash is stored. */
  token: string;
  tokenHash: string;
  prefix: string;
}

export function generateApiToken(): NewApiToken {
  const token = API_TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString("base64url");
  return { token, tokenHash: hashApiToken(token), prefix: token.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * Unsalted SHA-256 is enough here: a token is 256 random bits, not a password,
 * so there is nothing to guess, and a deterministic hash lets a request find
 * its token through the unique index in one lookup.
 */
export function hashApiToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * The credential of an `Authorization: Bearer …` header ("" when the scheme
 * has no credential), or null when the request sends no bearer token. Other
 * schemes are not ours (e.g. Basic auth of a proxy in front of the app) and
 * leave the session cookie in charge.
 */
export function bearerToken(headers: Headers): string | null {
  const header = headers.get("authorization");
  if (header === null) return null;
  const match = /^bearer(?:\s+(.*))?$/i.exec(header.trim());
  return match ? (match[1] ?? "").trim() : null;
}

/**
 * The owner of a live token, with the role their user row holds now, so a
 * demotion applies to their scripts at once.
 */
export async function userFromApiToken(db: Db, token: string, now = new Date()): Promise<SessionUser> {
  if (!TOKEN_SHAPE.test(token)) throw new InvalidApiTokenError();
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashApiToken(token) },
    select: { id: true, revokedAt: true, lastUsedAt: true, user: { select: { id: true, email: true, name: true, role: true } } },
  });
  if (!row || row.revokedAt) throw new InvalidApiTokenError();
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (!row.lastUsedAt || row.lastUsedAt <= staleBefore) {
    // Conditional, so concurrent requests of one script write once between them.
    await db.apiToken.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: staleBefore } }] },
      data: { lastUsedAt: now },
    });
  }
  return { id: row.user.id, email: row.user.email, name: row.user.name, role: row.user.role };
}
