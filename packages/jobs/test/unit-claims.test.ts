import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { UnitClaims } from "../src";

describe("run unit claims", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("a unit released after a failed attempt is retried once its pause is over, although its executor keeps renewing its leases", { timeout: 30_000 }, async () => {
    const { db } = database;
    const run = await db.run.create({ data: { kind: "judge", config: {}, status: "running" } });
    await db.runUnit.createMany({ data: [{ runId: run.id, key: "a", position: 0 }, { runId: run.id, key: "b", position: 1 }] });
    const executor = new UnitClaims(db, run.id, "worker-1/executor", 60);

    const [first, second] = await executor.claim(2);
    expect(await executor.fail(first!, "HTTP 503", 3)).toBe("released");
    // The executor goes on with its other unit, renewing what it holds.
    await executor.renew();
    expect(await executor.claim(1)).toEqual([]); // still within the retry pause (2 s after one attempt)
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    await executor.renew();

    const retried = await executor.claim(1);
    expect(retried.map((u) => [u.key, u.attempts])).toEqual([["a", 1]]);
    // The other unit, still worked on, keeps its lease.
    const held = await db.runUnit.findUniqueOrThrow({ where: { id: second!.id } });
    expect(held.claimedBy).toBe("worker-1/executor");
    expect(held.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });
});
