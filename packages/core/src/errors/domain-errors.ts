/**
 * Refusals every surface reports the same way. Domain code throws them with
 * the message the caller reads; the API maps each to its status in one place
 * (`packages/api/src/trpc.ts`), the CLI prints the message.
 */

/** The thing asked for does not exist (or the caller may not know that it does). */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}

/** The request clashes with the current state: a name taken, work already done, a slot gone. */
export class ConflictError extends Error {
  override readonly name = "ConflictError";
}

/** The caller is known and the thing exists, but it is not theirs to act on. */
export class ForbiddenError extends Error {
  override readonly name = "ForbiddenError";
}

/** A request body (or a part of an upload) is larger than the server takes; `limitBytes` is the cap it passed. */
export class PayloadTooLargeError extends Error {
  override readonly name = "PayloadTooLargeError";
  constructor(
    message: string,
    readonly limitBytes: number,
  ) {
    super(message);
  }
}

/** Too many attempts from one client or at one account; `retryAfterSeconds` says when the next one is let through. */
export class TooManyRequestsError extends Error {
  override readonly name = "TooManyRequestsError";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A body whose content the server does not take (an upload that is neither UTF-8 text nor a Parquet file): 415. */
export class UnsupportedContentError extends Error {
  override readonly name = "UnsupportedContentError";
}
