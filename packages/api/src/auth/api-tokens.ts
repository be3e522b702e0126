import { createHash, randomBytes } from "node:crypto";
import { isApiTokenScope, type ApiTokenScope } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { Caller } from "./caller";
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
export const EXPIRED_API_TOKEN_MESSAGE = "API token has expired";
export const DISABLED_ACCOUNT_TOKEN_MESSAGE = "API token belongs to a disabled account";

/** A request's bearer token matched no live token (unknown, revoked, expired, or its account disabled). Each surface turns it into its own 401. */
export class InvalidApiTokenError extends Error {
  constructor(message: string = INVALID_API_TOKEN_MESSAGE) {
    super(message);
    this.name = "InvalidApiTokenError";
  }
}

/** A stored token's scope. The column's constraint allows only the two; anything else is read as the narrower one. */
export function storedScope(scope: string): ApiTokenScope {
  return isApiTokenScope(scope) ? scope : "read";
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
  return (await callerFromApiToken(db, token, now)).user;
}

/**
 * The caller a live token stands for: its owner (role and account state read
 * now) and the token's id and scope. A revoked token, an expired one and one
 * of a disabled account are each refused with their own message.
 */
export async function callerFromApiToken(db: Db, token: string, now = new Date()): Promise<Caller> {
  if (!TOKEN_SHAPE.test(token)) throw new InvalidApiTokenError();
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashApiToken(token) },
    select: {
      id: true,
      revokedAt: true,
      expiresAt: true,
      scope: true,
      lastUsedAt: true,
      user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } },
    },
  });
  if (!row || row.revokedAt) throw new InvalidApiTokenError();
  if (row.expiresAt <= now) throw new InvalidApiTokenError(EXPIRED_API_TOKEN_MESSAGE);
  if (row.user.disabledAt) throw new InvalidApiTokenError(DISABLED_ACCOUNT_TOKEN_MESSAGE);
  const scope = storedScope(row.scope);
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (!row.lastUsedAt || row.lastUsedAt <= staleBefore) {
    // Conditional, so concurrent requests of one script write once between them.
    await db.apiToken.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: staleBefore } }] },
      data: { lastUsedAt: now },
    });
  }
  return {
    user: { id: row.user.id, email: row.user.email, name: row.user.name, role: row.user.role },
    credential: { kind: "token", tokenId: row.id, scope },
  };
}
