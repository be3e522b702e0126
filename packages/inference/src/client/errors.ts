/** Why a request to an inference server failed; decides whether it is retried. */
export type InferenceFailureKind =
  | "http" // the server answered with an error status
  | "timeout" // connect, headers or body took too long
  | "connection" // refused, reset or dropped mid-response
  | "malformed" // a 2xx whose body is not the OpenAI shape
  | "cancelled" // the caller's signal fired
  | "unavailable"; // no healthy replica could take it

export class InferenceError extends Error {
  override readonly name = "InferenceError";
  constructor(
    message: string,
    readonly kind: InferenceFailureKind,
    readonly retryable: boolean,
    readonly status?: number,
    /** Seconds the server asked us to wait (429 Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** 429 and 5xx are the server's temporary trouble; other 4xx are our request's fault. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
