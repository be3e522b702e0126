export interface RetryPolicy {
  /** Attempts in total, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 20_000 };

/**
 * Exponential backoff with full jitter: a random wait in [0, base·2^(attempt-1)],
 * capped. Jitter keeps a crowd of clients that failed together from retrying together.
 * A server's Retry-After, when given, is a floor.
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: () => number, retryAfterSeconds?: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = random() * ceiling;
  return retryAfterSeconds !== undefined ? Math.max(jittered, Math.min(policy.maxDelayMs, retryAfterSeconds * 1000)) : jittered;
}

/** Resolves after `ms`, or rejects at once when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
