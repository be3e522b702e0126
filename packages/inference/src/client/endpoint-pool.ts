import { InferenceError } from "./errors";
import { DEFAULT_TIMEOUTS, ReplicaTransport, type TransportTimeouts } from "./transport";

export interface ReplicaConfig {
  /** OpenAI-compatible base URL including /v1. */
  baseUrl: string;
  /** Requests this replica may have in flight (≈ its max concurrent sequences / n). */
  maxInFlight: number;
  apiKey?: string;
}

export interface HealthPolicy {
  /** Consecutive connection failures or timeouts before a replica is taken out. */
  failuresToMarkDown: number;
  /** How long a replica stays out before it is probed again. */
  downForMs: number;
  probeTimeoutMs: number;
}

export const DEFAULT_HEALTH_POLICY: HealthPolicy = { failuresToMarkDown: 3, downForMs: 5_000, probeTimeoutMs: 5_000 };

export interface ReplicaStatus {
  baseUrl: string;
  inFlight: number;
  maxInFlight: number;
  /** In-flight slots this process may use now: maxInFlight, or less while a shared limiter grants less. */
  limit: number;
  healthy: boolean;
  dispatched: number;
  failures: number;
}

class Replica {
  inFlight = 0;
  /** Lowered by a shared limiter (other processes use the rest); never above maxInFlight. */
  limit: number;
  healthy = true;
  consecutiveFailures = 0;
  dispatched = 0;
  failures = 0;
  probing = false;
  readonly hashSeed: number;

  constructor(
    readonly config: ReplicaConfig,
    readonly transport: ReplicaTransport,
  ) {
    this.hashSeed = fnv1a(config.baseUrl);
    this.limit = config.maxInFlight;
  }

  get saturated(): boolean {
    return this.inFlight >= this.limit;
  }
}

export interface Lease {
  readonly replica: Replica;
  readonly transport: ReplicaTransport;
  readonly baseUrl: string;
}

interface Waiter {
  affinityKey: string | undefined;
  resolve: (lease: Lease) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Replicas serving one model. Dispatch is least-outstanding-requests with prefix
 * affinity: a request with an affinity key (e.g. the chunk prefix its rollouts share)
 * goes to the replica that rendezvous hashing ranks first for that key, so the
 * replica's prefix cache serves the shared prompt; when that one is full, the
 * second-ranked, then the least loaded. Requests wait in FIFO order when all are full.
 */
export class EndpointPool {
  private readonly replicas: Replica[];
  private readonly waiters: Waiter[] = [];
  private readonly health: HealthPolicy;
  private closed = false;

  /** Called when a request has to wait because every replica is at its limit (a shared limiter may grant more). */
  private readonly onWait: (() => void) | undefined;

  constructor(
    configs: readonly ReplicaConfig[],
    options: {
      timeouts?: Partial<TransportTimeouts>;
      health?: Partial<HealthPolicy>;
      /** Start every replica at this many slots instead of maxInFlight (0 when a shared limiter grants them). */
      initialLimit?: number;
      onWait?: () => void;
    } = {},
  ) {
    if (configs.length === 0) throw new Error("an endpoint pool needs at least one replica");
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.health = { ...DEFAULT_HEALTH_POLICY, ...options.health };
    this.replicas = configs.map((config) => {
      if (!(config.maxInFlight >= 1)) throw new Error(`replica ${config.baseUrl}: maxInFlight must be ≥ 1`);
      return new Replica(config, new ReplicaTransport(config.baseUrl, config.maxInFlight, timeouts, config.apiKey));
    });
    if (options.initialLimit !== undefined) for (const replica of this.replicas) replica.limit = clampLimit(options.initialLimit, replica);
    this.onWait = options.onWait;
  }

  /** Requests waiting for a slot on any replica. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Sets how many requests this process may have in flight on one replica.
   * Lowering it never interrupts requests in flight: they finish and no new one
   * starts until the replica is below the new limit.
   */
  setLimit(baseUrl: string, limit: number): void {
    const replica = this.replicas.find((r) => r.config.baseUrl === baseUrl);
    if (!replica) throw new Error(`no replica ${baseUrl} in this pool`);
    const raised = limit > replica.limit;
    replica.limit = clampLimit(limit, replica);
    if (raised) this.drain();
  }

  /** Total requests the pool can have in flight. */
  get capacity(): number {
    return this.replicas.reduce((sum, r) => sum + r.config.maxInFlight, 0);
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      baseUrl: r.config.baseUrl,
      inFlight: r.inFlight,
      maxInFlight: r.config.maxInFlight,
      limit: r.limit,
      healthy: r.healthy,
      dispatched: r.dispatched,
      failures: r.failures,
    }));
  }

  /**
   * GET `path` (relative to the base URL) from one replica, the first healthy
   * one, outside the request slots: a small read such as the model list.
   */
  getJson(path: string, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new InferenceError("the endpoint pool is closed", "cancelled", false));
    const replica = this.replicas.find((r) => r.healthy) ?? this.replicas[0]!;
    return replica.transport.getJson(path, timeoutMs);
  }

  /** A slot on a replica; hold it for exactly one HTTP request and give it back with `release`. */
  acquire(affinityKey?: string, signal?: AbortSignal): Promise<Lease> {
    if (this.closed) return Promise.reject(new InferenceError("the endpoint pool is closed", "cancelled", false));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const replica = this.choose(affinityKey);
    if (replica) return Promise.resolve(this.lease(replica));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { affinityKey, resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index !== -1) this.waiters.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.onWait?.();
    });
  }

  /**
   * Returns the slot. Connection failures and timeouts count against the
   * replica's health; HTTP errors do not (the replica answered).
   */
  release(lease: Lease, outcome: "ok" | "http-error" | "unreachable" | "cancelled"): void {
    const replica = lease.replica;
    replica.inFlight -= 1;
    if (outcome === "ok" || outcome === "http-error") replica.consecutiveFailures = 0;
    if (outcome === "unreachable") {
      replica.failures += 1;
      replica.consecutiveFailures += 1;
      if (replica.healthy && replica.consecutiveFailures >= this.health.failuresToMarkDown) this.markDown(replica);
    }
    this.drain();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new InferenceError("the endpoint pool was closed", "cancelled", false));
    await Promise.all(this.replicas.map((r) => r.transport.close()));
  }

  private lease(replica: Replica): Lease {
    replica.inFlight += 1;
    replica.dispatched += 1;
    return { replica, transport: replica.transport, baseUrl: replica.config.baseUrl };
  }

  private choose(affinityKey: string | undefined): Replica | undefined {
    const healthy = this.replicas.filter((r) => r.healthy);
    if (healthy.length === 0) return undefined;
    if (affinityKey !== undefined && healthy.length > 1) {
      const keyHash = fnv1a(affinityKey);
      const ranked = [...healthy].sort((a, b) => mix(keyHash, b.hashSeed) - mix(keyHash, a.hashSeed));
      for (const replica of ranked.slice(0, 2)) if (!replica.saturated) return replica;
    }
    let best: Replica | undefined;
    for (const replica of healthy) {
      if (replica.saturated) continue;
      // Least outstanding relative to size, so a bigger replica takes more.
      if (!best || replica.inFlight / replica.limit < best.inFlight / best.limit) best = replica;
    }
    return best;
  }

  private drain(): void {
    while (this.waiters.length > 0) {
      const waiter = this.waiters[0]!;
      const replica = this.choose(waiter.affinityKey);
      if (!replica) return;
      this.waiters.shift();
      if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(this.lease(replica));
    }
  }

  private markDown(replica: Replica): void {
    replica.healthy = false;
    const probe = () => {
      if (this.closed) return;
      replica.probing = true;
      replica.transport
        .getJson("/models", this.health.probeTimeoutMs)
        .then(() => {
          replica.healthy = true;
          replica.consecutiveFailures = 0;
          this.drain();
        })
        .catch(() => setTimeout(probe, this.health.downForMs).unref())
        .finally(() => {
          replica.probing = false;
        });
    };
    setTimeout(probe, this.health.downForMs).unref();
  }
}

function clampLimit(limit: number, replica: Replica): number {
  return Math.max(0, Math.min(replica.config.maxInFlight, Math.floor(limit)));
}

/** 32-bit FNV-1a: a fast, stable string hash for rendezvous ranking. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Combines key and replica hashes into a well-spread score (murmur3 finaliser). */
function mix(a: number, b: number): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
