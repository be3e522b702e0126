export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the server served from its prefix cache (when it reports them). */
  cachedPromptTokens: number;
}

export interface UsageSnapshot extends TokenUsage {
  requests: number;
  failedRequests: number;
  /** Attempts beyond the first, over all requests. */
  retries: number;
  latencyMs: { mean: number | null; p50: number | null; p95: number | null; max: number | null };
}

/**
 * Token, request and latency accounting for one run (or one client). Latencies are
 * kept in a bounded reservoir so a million-request run does not grow memory.
 */
export class UsageMeter {
  private promptTokens = 0;
  private completionTokens = 0;
  private cachedPromptTokens = 0;
  private requests = 0;
  private failedRequests = 0;
  private retries = 0;
  private latencySum = 0;
  private latencyMax = 0;
  private latencyCount = 0;
  private readonly reservoir: number[] = [];

  constructor(private readonly reservoirSize = 10_000) {}

  recordSuccess(usage: TokenUsage, latencyMs: number, attempts: number): void {
    this.requests += 1;
    this.retries += attempts - 1;
    this.promptTokens += usage.promptTokens;
    this.completionTokens += usage.completionTokens;
    this.cachedPromptTokens += usage.cachedPromptTokens;
    this.recordLatency(latencyMs);
  }

  recordFailure(attempts: number): void {
    this.requests += 1;
    this.failedRequests += 1;
    this.retries += attempts - 1;
  }

  snapshot(): UsageSnapshot {
    const sorted = [...this.reservoir].sort((a, b) => a - b);
    const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : null);
    return {
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      cachedPromptTokens: this.cachedPromptTokens,
      requests: this.requests,
      failedRequests: this.failedRequests,
      retries: this.retries,
      latencyMs: {
        mean: this.latencyCount ? this.latencySum / this.latencyCount : null,
        p50: at(0.5),
        p95: at(0.95),
        max: this.latencyCount ? this.latencyMax : null,
      },
    };
  }

  private recordLatency(ms: number): void {
    this.latencyCount += 1;
    this.latencySum += ms;
    this.latencyMax = Math.max(this.latencyMax, ms);
    if (this.reservoir.length < this.reservoirSize) this.reservoir.push(ms);
    else {
      // Reservoir sampling keeps a uniform sample of all latencies seen.
      const slot = Math.floor(Math.random() * this.latencyCount);
      if (slot < this.reservoirSize) this.reservoir[slot] = ms;
    }
  }
}
