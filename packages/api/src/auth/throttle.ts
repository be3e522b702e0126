import { TooManyRequestsError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { isIP } from "node:net";
import { UNKNOWN_CLIENT_ADDRESS } from "../request-origin/request-origin";

/*
 * Throttles kept in PostgreSQL (table ThrottleBucket), so every web process of a deployment counts together.
 *
 * - Per client address, a fixed window: at most `max` attempts per `windowSeconds` (sign-ins: 10 a minute by
 *   default; refused API tokens: 20 a minute). IPv6 clients count by their /64, the block one host usually holds.
 * - Per account, a backoff after failures in a row: the first ACCOUNT_FREE_FAILURES wrong passwords cost nothing; after
 *   that each attempt must wait ACCOUNT_BASE_DELAY_SECONDS × 2^(failures − free) since the last failure, at most
 *   ACCOUNT_MAX_DELAY_SECONDS. A right password clears the count, as does ACCOUNT_FORGET_SECONDS without a failure.
 *   Every attempt counts as a failure until it succeeds. Someone who only knows the email can therefore hold its owner
 *   off for at most ACCOUNT_MAX_DELAY_SECONDS after their own last attempt, never lock the account; guessing is slowed
 *   to one try a minute across all addresses.
 */

export const ACCOUNT_FREE_FAILURES = 5;
export const ACCOUNT_BASE_DELAY_SECONDS = 2;
export const ACCOUNT_MAX_DELAY_SECONDS = 60;
export const ACCOUNT_FORGET_SECONDS = 15 * 60;
/** Refused bearer tokens one client address may send per minute before it is answered 429 without a lookup. */
export const REFUSED_TOKENS_PER_MINUTE = 20;
const PRUNE_AFTER_SECONDS = 24 * 60 * 60;

/** The part of an address its bucket is keyed by: IPv4 as it is, IPv6 by its /64. */
export function addressBucketOf(address: string): string {
  if (address === UNKNOWN_CLIENT_ADDRESS || isIP(address) !== 6) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** The account backoff in seconds after `failures` failures in a row (0 while they are free). */
export function accountDelaySeconds(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  return Math.min(ACCOUNT_MAX_DELAY_SECONDS, ACCOUNT_BASE_DELAY_SECONDS * 2 ** (failures - ACCOUNT_FREE_FAILURES));
}

/** Counts one attempt of `key` in its window; throws TooManyRequestsError (with the seconds left) past `max`. */
export async function countAttempt(db: Db, key: string, max: number, windowSeconds: number, message: string): Promise<void> {
  const [row] = await db.$queryRaw<{ count: number; ageSeconds: number }[]>`
    INSERT INTO "ThrottleBucket" ("key", "count", "startedAt", "updatedAt") VALUES (${key}, 1, now(), now())
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "ThrottleBucket"."startedAt" <= now() - make_interval(secs => ${windowSeconds}::float8) THEN 1 ELSE "ThrottleBucket"."count" + 1 END,
      "startedAt" = CASE WHEN "ThrottleBucket"."startedAt" <= now() - make_interval(secs => ${windowSeconds}::float8) THEN now() ELSE "ThrottleBucket"."startedAt" END,
      "updatedAt" = now()
    RETURNING "count", EXTRACT(EPOCH FROM now() - "startedAt")::float8 AS "ageSeconds"`;
  if (Math.random() < 0.01) await pruneBuckets(db);
  if (row && row.count > max) {
    const retryAfter = Math.max(1, Math.ceil(windowSeconds - row.ageSeconds));
    throw new TooManyRequestsError(`${message}; try again in ${retryAfter} s`, retryAfter);
  }
}

/** Whether `key` is over `max` in its current window, without counting (for checks made before the work they guard). */
export async function overLimit(db: Db, key: string, max: number, windowSeconds: number): Promise<number | null> {
  const [row] = await db.$queryRaw<{ count: number; ageSeconds: number }[]>`
    SELECT "count", EXTRACT(EPOCH FROM now() - "startedAt")::float8 AS "ageSeconds" FROM "ThrottleBucket" WHERE "key" = ${key}`;
  if (!row || row.ageSeconds >= windowSeconds || row.count < max) return null;
  return Math.max(1, Math.ceil(windowSeconds - row.ageSeconds));
}

/**
 * Claims one attempt at account `key`: counted as a failure at once, in one statement that also checks the backoff,
 * so parallel attempts cannot all slip through a check made before any of them is counted. A success clears the
 * bucket afterwards (`clearBucket`). Throws TooManyRequestsError while the backoff runs.
 */
export async function claimAccountAttempt(db: Db, key: string, message: string): Promise<void> {
  const forgotten = ACCOUNT_FORGET_SECONDS;
  const claimed = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO "ThrottleBucket" AS b ("key", "count", "startedAt", "updatedAt") VALUES (${key}, 1, now(), now())
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN b."updatedAt" <= now() - make_interval(secs => ${forgotten}::float8) THEN 1 ELSE b."count" + 1 END,
      "startedAt" = CASE WHEN b."updatedAt" <= now() - make_interval(secs => ${forgotten}::float8) THEN now() ELSE b."startedAt" END,
      "updatedAt" = now()
    WHERE b."updatedAt" <= now() - make_interval(secs => ${forgotten}::float8)
       OR b."count" < ${ACCOUNT_FREE_FAILURES}
       OR EXTRACT(EPOCH FROM now() - b."updatedAt") >= LEAST(${ACCOUNT_MAX_DELAY_SECONDS}::float8, ${ACCOUNT_BASE_DELAY_SECONDS}::float8 * power(2, b."count" - ${ACCOUNT_FREE_FAILURES}))
    RETURNING b."count"`;
  if (claimed.length > 0) return;
  const [row] = await db.$queryRaw<{ count: number; sinceSeconds: number }[]>`
    SELECT "count", EXTRACT(EPOCH FROM now() - "updatedAt")::float8 AS "sinceSeconds" FROM "ThrottleBucket" WHERE "key" = ${key}`;
  const retryAfter = Math.max(1, Math.ceil(accountDelaySeconds(row?.count ?? ACCOUNT_FREE_FAILURES) - (row?.sinceSeconds ?? 0)));
  throw new TooManyRequestsError(`${message}; try again in ${retryAfter} s`, retryAfter);
}

export async function clearBucket(db: Db, key: string): Promise<void> {
  await db.$executeRaw`DELETE FROM "ThrottleBucket" WHERE "key" = ${key}`;
}

async function pruneBuckets(db: Db): Promise<void> {
  await db.$executeRaw`DELETE FROM "ThrottleBucket" WHERE "updatedAt" < now() - make_interval(secs => ${PRUNE_AFTER_SECONDS}::float8)`;
}
