import type { Db } from "@stepwiser/db";
import type { EndpointPool } from "@stepwiser/inference";

export interface SharedCapacityOptions {
  /** This process's identity in the lease table. */
  holderId: string;
  /** A holder that has not renewed for this long is presumed dead and its slots are reclaimed. */
  leaseSeconds: number;
  /** How often slots are renewed and rebalanced between processes. */
  rebalanceMs: number;
  log?: (line: string) => void;
}

interface ReplicaRegistration {
  /** `endpoint name @ base URL`: the unit a concurrency limit applies to. */
  key: string;
  baseUrl: string;
  /** The endpoint's maxConcurrency for this replica, shared by every process. */
  limit: number;
  pool: EndpointPool;
}

interface LeaseRow {
  holderId: string;
  slots: number;
  demand: number;
}

/**
 * Holds per-replica concurrency limits across worker processes. Each process
 * records in `EndpointCapacityLease` how many slots of a replica it holds; under
 * an advisory lock per replica it takes slots only while the sum over all
 * holders stays within the limit, so the sum of requests in flight on a replica
 * never exceeds it, whatever the number of processes. Shares follow demand
 * (water-filling: nobody gets more than it asks for, the rest is split evenly),
 * and a process that stops renewing loses its slots after the lease time.
 *
 * Ordering keeps the invariant while slots move: a process lowers its local
 * limit before it writes a smaller share (and never records fewer slots than it
 * has in flight), and raises its local limit only after a larger share is
 * committed.
 */
export class SharedCapacity {
  private readonly replicas = new Map<string, ReplicaRegistration[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Local time before the last successful renewal was sent; the database's lease started after it. */
  private renewedSince = 0;
  private stopped = false;
  /** Whether the last rebalance left this process holding a row for some replica. */
  private holdsRows = true;

  constructor(
    private readonly db: Db,
    private readonly options: SharedCapacityOptions,
  ) {}

  /** Puts every replica of `pool` under the shared limit; the pool must start at limit 0 and call `requestSlots` when it waits. */
  register(endpointName: string, pool: EndpointPool, limit: number): void {
    for (const { baseUrl } of pool.status()) {
      const key = replicaKey(endpointName, baseUrl);
      const list = this.replicas.get(key) ?? [];
      list.push({ key, baseUrl, limit, pool });
      this.replicas.set(key, list);
    }
    this.ensureTimer();
  }

  /** Asks for a rebalance now (a request is waiting for a slot). */
  requestSlots(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rebalance()
      .catch((error: unknown) => {
        this.options.log?.(`[capacity] rebalance failed: ${(error as Error).message}`);
        this.expireIfStale();
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          setTimeout(() => this.requestSlots(), 50).unref();
        }
      });
  }

  /** Gives every slot back (in-flight requests have finished) and stops renewing. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    const keys = [...this.replicas.keys()];
    if (keys.length) await this.db.$executeRaw`DELETE FROM "EndpointCapacityLease" WHERE "holderId" = ${this.options.holderId} AND "replicaKey" = ANY(${keys})`;
  }

  private ensureTimer(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.requestSlots(), this.options.rebalanceMs);
    this.timer.unref();
  }

  /** Past the lease, other processes may already have taken this process's slots: stop starting requests. */
  private expireIfStale(): void {
    const marginMs = Math.min(2_000, this.options.leaseSeconds * 250);
    if (Date.now() - this.renewedSince < this.options.leaseSeconds * 1000 - marginMs) return;
    for (const list of this.replicas.values()) for (const r of list) r.pool.setLimit(r.baseUrl, 0);
  }

  private async rebalance(): Promise<void> {
    const startedAt = Date.now();
    const keys = [...this.replicas.keys()].sort();
    if (keys.length === 0) return;
    // An idle worker with nothing recorded has nothing to renew: no transaction every interval for nothing.
    const idle = [...this.replicas.values()].every((list) => list.every((r) => demandOf(r) === 0 && localLimit(r) === 0));
    if (idle && !this.holdsRows) {
      this.renewedSince = startedAt;
      return;
    }
    let holdsRows = false;
    const raises: (() => void)[] = [];
    await this.db.$transaction(
      async (tx) => {
        // One lock per replica, always taken in the same order, so two processes never deadlock.
        for (const key of keys) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('stepwiser:capacity'), hashtext(${key}))`;
        await tx.$executeRaw`DELETE FROM "EndpointCapacityLease" WHERE "replicaKey" = ANY(${keys}) AND "renewedAt" < now() - make_interval(secs => ${this.options.leaseSeconds}::float8)`;
        const rows = await tx.$queryRaw<(LeaseRow & { replicaKey: string })[]>`
          SELECT "replicaKey", "holderId", slots, demand FROM "EndpointCapacityLease" WHERE "replicaKey" = ANY(${keys})`;
        for (const key of keys) {
          const registrations = this.replicas.get(key)!;
          const limit = Math.min(...registrations.map((r) => r.limit));
          const others = rows.filter((row) => row.replicaKey === key && row.holderId !== this.options.holderId);
          const demand = Math.min(limit, registrations.reduce((sum, r) => sum + demandOf(r), 0));
          const target = fairShare(limit, [...others, { holderId: this.options.holderId, slots: 0, demand }])(this.options.holderId);
          const free = limit - others.reduce((sum, row) => sum + row.slots, 0);
          const grant = Math.max(0, Math.min(target, free));
          const current = registrations.reduce((sum, r) => sum + localLimit(r), 0);
          if (grant < current) splitAmong(registrations, grant); // lower first, then record
          const inFlight = registrations.reduce((sum, r) => sum + inFlightOf(r), 0);
          const recorded = Math.max(grant, inFlight);
          // A holder waiting for slots keeps a row even while it holds none: its demand is how the
          // others learn to give some back (without it, whoever came first would keep every slot).
          if (recorded === 0 && demand === 0) {
            await tx.$executeRaw`DELETE FROM "EndpointCapacityLease" WHERE "replicaKey" = ${key} AND "holderId" = ${this.options.holderId}`;
          } else {
            holdsRows = true;
            await tx.$executeRaw`
              INSERT INTO "EndpointCapacityLease" ("replicaKey", "holderId", slots, demand, "renewedAt")
              VALUES (${key}, ${this.options.holderId}, ${recorded}, ${demand}, now())
              ON CONFLICT ("replicaKey", "holderId") DO UPDATE SET slots = EXCLUDED.slots, demand = EXCLUDED.demand, "renewedAt" = now()`;
          }
          if (grant > current) raises.push(() => splitAmong(registrations, grant)); // raise only once committed
        }
      },
      { timeout: 10_000, maxWait: 10_000 },
    );
    this.renewedSince = startedAt;
    this.holdsRows = holdsRows;
    for (const raise of raises) raise();
  }
}

export function replicaKey(endpointName: string, baseUrl: string): string {
  return `${endpointName}@${baseUrl}`;
}

function replicaStatus(r: ReplicaRegistration) {
  const status = r.pool.status().find((s) => s.baseUrl === r.baseUrl);
  if (!status) throw new Error(`replica ${r.baseUrl} left its pool`);
  return status;
}
const localLimit = (r: ReplicaRegistration) => replicaStatus(r).limit;
const inFlightOf = (r: ReplicaRegistration) => replicaStatus(r).inFlight;
/** What this process would use on the replica now: its requests in flight plus every waiting one (any replica may serve it). */
const demandOf = (r: ReplicaRegistration) => inFlightOf(r) + r.pool.waiting;

/** Spreads `slots` over the pools sharing one replica key (usually one), by their demand. */
function splitAmong(registrations: ReplicaRegistration[], slots: number): void {
  let left = slots;
  registrations.forEach((r, i) => {
    const share = i === registrations.length - 1 ? left : Math.min(left, demandOf(r));
    r.pool.setLimit(r.baseUrl, share);
    left -= share;
  });
}

/**
 * Water-filling: holders asking for less than an even share get what they ask;
 * the rest split what remains evenly, the remainder of the division going to
 * the holder asking most (the last by id on ties), so every process computes
 * the same split.
 */
export function fairShare(limit: number, holders: readonly LeaseRow[]): (holderId: string) => number {
  const sorted = [...holders].sort((a, b) => a.demand - b.demand || a.holderId.localeCompare(b.holderId));
  const shares = new Map<string, number>();
  let left = limit;
  sorted.forEach((holder, i) => {
    const share = Math.min(holder.demand, Math.floor(left / (sorted.length - i)));
    shares.set(holder.holderId, share);
    left -= share;
  });
  return (holderId) => shares.get(holderId) ?? 0;
}
