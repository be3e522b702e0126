import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { buildSelfSegmentingPolicyPrompt } from "@stepwiser/core";
import { generateProblem } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EndpointClients, fairShare, SharedCapacity, type EndpointSnapshot } from "../src";

describe("fairShare (water-filling)", () => {
  const share = (limit: number, demands: Record<string, number>) => {
    const of = fairShare(limit, Object.entries(demands).map(([holderId, demand]) => ({ holderId, demand, slots: 0 })));
    return Object.fromEntries(Object.keys(demands).map((id) => [id, of(id)]));
  };
  it("splits evenly among holders that want more than an even share, the remainder to the last", () => {
    expect(share(10, { a: 100, b: 100, c: 100 })).toEqual({ a: 3, b: 3, c: 4 });
  });
  it("gives small demands what they ask and the rest to the others", () => {
    expect(share(10, { a: 1, b: 100, c: 100 })).toEqual({ a: 1, b: 4, c: 5 });
    expect(share(10, { a: 0, b: 3 })).toEqual({ a: 0, b: 3 });
  });
  it("never hands out more than the limit", () => {
    for (let limit = 0; limit < 20; limit++) {
      const result = share(limit, { a: 7, b: 2, c: 30, d: 5 });
      expect(Object.values(result).reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(limit);
    }
  });
});

/**
 * Three "processes" (each its own SharedCapacity holder and endpoint clients,
 * as three workers would have) send requests to one replica whose endpoint
 * allows 6 in flight; the replica's own counter of open requests must never
 * pass 6, and every holder must get its turn.
 */
describe("SharedCapacity across holders", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  const LIMIT = 6;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1, capacity: { decodeTokensPerSecondPerSequence: 400 } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  const endpoint = (): EndpointSnapshot => ({ name: "policy", model: "sim-policy", baseUrls: [...cluster.urls], maxConcurrency: LIMIT });
  const holder = (holderId: string, leaseSeconds = 5) => {
    const capacity = new SharedCapacity(database.db, { holderId, leaseSeconds, rebalanceMs: 100 });
    return { capacity, clients: new EndpointClients({ sharedCapacity: capacity }) };
  };
  const ask = (clients: EndpointClients, i: number, maxTokens = 24) =>
    clients.get(endpoint()).client.generate({
      model: "sim-policy",
      prompt: { kind: "chat", messages: [{ role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: generateProblem(i).text }).text }] },
      maxTokens,
      seed: i,
    });

  it("keeps the sum of requests in flight within the endpoint's limit and serves every holder", { timeout: 60_000 }, async () => {
    const holders = ["worker-a", "worker-b", "worker-c"].map((id) => holder(id));
    const before = cluster.replicas[0]!.metrics().requests;
    const results = await Promise.all(holders.map((h, k) => Promise.all(Array.from({ length: 40 }, (_, i) => ask(h.clients, k * 100 + i)))));
    for (const batch of results) expect(batch).toHaveLength(40);
    const metrics = cluster.replicas[0]!.metrics();
    expect(metrics.requests - before).toBe(120);
    expect(metrics.peakOpenRequests).toBeLessThanOrEqual(LIMIT);
    // The limit was actually contended, so the bound means something.
    expect(metrics.peakOpenRequests).toBe(LIMIT);
    for (const h of holders) {
      await h.capacity.stop();
      await h.clients.close();
    }
    expect(await database.db.endpointCapacityLease.count()).toBe(0);
  });

  it("a holder arriving while another holds every slot gets its fair share", { timeout: 60_000 }, async () => {
    const { db } = database;
    const replicaKey = `policy@${cluster.urls[0]}`;
    const first = holder("worker-first");
    // Far more work than the limit (each request ~0.5 s), so the first holder takes every slot and keeps wanting them.
    let firstDone = false;
    const firstBatch = Promise.all(Array.from({ length: 72 }, (_, i) => ask(first.clients, 500 + i, 200))).finally(() => (firstDone = true));
    const slotsOf = async (holderId: string) =>
      (await db.endpointCapacityLease.findUnique({ where: { replicaKey_holderId: { replicaKey, holderId } }, select: { slots: true } }))?.slots ?? 0;
    for (const deadline = Date.now() + 10_000; (await slotsOf("worker-first")) < LIMIT; ) {
      if (Date.now() > deadline) throw new Error("the first holder never took every slot");
      await new Promise((r) => setTimeout(r, 20));
    }

    const late = holder("worker-late");
    const lateBatch = Promise.all(Array.from({ length: 12 }, (_, i) => ask(late.clients, 700 + i, 200)));
    let lateSlots = 0;
    for (const deadline = Date.now() + 10_000; lateSlots < LIMIT / 2; lateSlots = await slotsOf("worker-late")) {
      if (Date.now() > deadline) throw new Error(`the late holder has ${lateSlots} of ${LIMIT} slots after 10 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Taken from the first holder while it still wanted every slot, not left over once it was done.
    expect(firstDone).toBe(false);
    expect(lateSlots).toBe(LIMIT / 2);
    await Promise.all([firstBatch, lateBatch]);
    expect(cluster.replicas[0]!.metrics().peakOpenRequests).toBeLessThanOrEqual(LIMIT);
    for (const h of [first, late]) {
      await h.capacity.stop();
      await h.clients.close();
    }
  });

  it("takes over the slots of a holder that stopped renewing once its lease has run out", { timeout: 60_000 }, async () => {
    const { db } = database;
    // A dead worker: it holds every slot and never renews.
    await db.endpointCapacityLease.create({ data: { replicaKey: `policy@${cluster.urls[0]}`, holderId: "dead-worker", slots: LIMIT, demand: LIMIT } });
    const live = holder("worker-live", 2);
    const started = Date.now();
    const first = await ask(live.clients, 1);
    expect(first.samples).toHaveLength(1);
    // Not before the dead holder's lease (2 s from its renewal) ran out.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(await db.endpointCapacityLease.count({ where: { holderId: "dead-worker" } })).toBe(0);
    await live.capacity.stop();
    await live.clients.close();
  });
});
