import { TooManyRequestsError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { currentClientAddress } from "../request-origin/request-origin";
import { callerFromApiToken, InvalidApiTokenError } from "./api-tokens";
import type { Caller } from "./caller";
import { addressBucketOf, countAttempt, overLimit, REFUSED_TOKENS_PER_MINUTE } from "./throttle";

/**
 * The caller of a bearer token, with refused tokens throttled per client address (as the HTTP server resolved it):
 * past REFUSED_TOKENS_PER_MINUTE refusals in a minute, the address's requests with a bearer token are answered 429
 * without looking the token up. A token is 256 random bits, so this guards the database and the logs more than the
 * tokens; a live token is never slowed by someone else's refusals elsewhere.
 */
export async function callerFromThrottledToken(db: Db, token: string): Promise<Caller> {
  const key = `api-token:address:${addressBucketOf(currentClientAddress())}`;
  const wait = await overLimit(db, key, REFUSED_TOKENS_PER_MINUTE, 60);
  if (wait !== null) throw new TooManyRequestsError(`too many refused API tokens from this address; try again in ${wait} s`, wait);
  try {
    return await callerFromApiToken(db, token);
  } catch (error) {
    if (error instanceof InvalidApiTokenError) await countAttempt(db, key, Number.MAX_SAFE_INTEGER, 60, "");
    throw error;
  }
}
