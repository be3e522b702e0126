import type { Db } from "@stepwiser/db";

export interface ClaimedUnit {
  id: string;
  key: string;
  attempts: number;
}

/**
 * A run's units as several executors (in one or many worker processes) share
 * them: a pending unit is claimed by one executor for a lease, renewed while
 * it works; completion is fenced on the claim, so a unit whose executor lost
 * its lease (stalled past it, and another took the unit over) is recorded once.
 * A unit whose executor died becomes claimable again when its lease runs out.
 */
export class UnitClaims {
  constructor(
    private readonly db: Db,
    private readonly runId: string,
    readonly executorId: string,
    private readonly leaseSeconds: number,
  ) {}

  /** Up to `limit` claimable units in plan order; SKIP LOCKED keeps concurrent claimers from blocking or sharing. */
  async claim(limit: number): Promise<ClaimedUnit[]> {
    return this.db.$queryRaw<ClaimedUnit[]>`
      UPDATE "RunUnit" AS u
         SET "claimedBy" = ${this.executorId},
             "leaseExpiresAt" = now() + make_interval(secs => ${this.leaseSeconds}::float8),
             "updatedAt" = now()
        FROM (
          SELECT id FROM "RunUnit"
           WHERE "runId" = ${this.runId} AND status = 'pending'
             AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())
           ORDER BY position
           LIMIT ${limit}
           FOR UPDATE SKIP LOCKED
        ) AS free
       WHERE u.id = free.id
      RETURNING u.id, u.key, u.attempts`;
  }

  /** Extends the lease of every unit this executor still holds. */
  async renew(): Promise<void> {
    await this.db.$executeRaw`
      UPDATE "RunUnit" SET "leaseExpiresAt" = now() + make_interval(secs => ${this.leaseSeconds}::float8)
       WHERE "runId" = ${this.runId} AND "claimedBy" = ${this.executorId} AND status = 'pending'`;
  }

  /** Marks the unit done if this executor still holds it; false when another executor took it over. */
  async complete(unit: ClaimedUnit, result: unknown): Promise<boolean> {
    const { count } = await this.db.runUnit.updateMany({
      where: { id: unit.id, claimedBy: this.executorId, status: "pending" },
      data: { status: "done", attempts: { increment: 1 }, error: null, leaseExpiresAt: null, ...(result === undefined ? {} : { result: result as object }) },
    });
    return count === 1;
  }

  /**
   * Records a failed attempt: the unit fails for good at `maxAttempts`;
   * otherwise it is released for any executor to retry after a short pause
   * that grows with its attempts (a flaky replica gets time to recover).
   * A released unit is no longer this executor's, or its lease renewals
   * would keep pushing the pause back and nobody could ever retry it.
   */
  async fail(unit: ClaimedUnit, message: string, maxAttempts: number): Promise<"failed" | "released" | "lost"> {
    const attempts = unit.attempts + 1;
    const failed = attempts >= maxAttempts;
    const retryAfterSeconds = failed ? 0 : Math.min(30, 2 ** attempts);
    const count = await this.db.$executeRaw`
      UPDATE "RunUnit"
         SET attempts = ${attempts}, error = ${message.slice(0, 2000)},
             status = ${failed ? "failed" : "pending"}::"RunUnitStatus",
             "claimedBy" = CASE WHEN ${failed} THEN "claimedBy" ELSE NULL END,
             "leaseExpiresAt" = CASE WHEN ${failed} THEN NULL ELSE now() + make_interval(secs => ${retryAfterSeconds}::float8) END,
             "updatedAt" = now()
       WHERE id = ${unit.id} AND "claimedBy" = ${this.executorId} AND status = 'pending'`;
    if (count === 0) return "lost";
    return failed ? "failed" : "released";
  }

  /** Gives back every unit this executor holds and has not finished (it stops: cancelled or failing), so others need not wait out the lease. */
  async releaseAll(): Promise<void> {
    await this.db.$executeRaw`
      UPDATE "RunUnit" SET "leaseExpiresAt" = NULL
       WHERE "runId" = ${this.runId} AND "claimedBy" = ${this.executorId} AND status = 'pending'`;
  }

  /** Gives back units claimed but not started (a cancelled executor), so others need not wait out the lease. */
  async release(units: readonly ClaimedUnit[]): Promise<void> {
    if (units.length === 0) return;
    await this.db.runUnit.updateMany({
      where: { id: { in: units.map((u) => u.id) }, claimedBy: this.executorId, status: "pending" },
      // Unclaimed, so this executor's renewals leave them alone.
      data: { leaseExpiresAt: null, claimedBy: null },
    });
  }

  /** Units not finished yet, whoever holds them. */
  outstanding(): Promise<number> {
    return this.db.runUnit.count({ where: { runId: this.runId, status: "pending" } });
  }
}
