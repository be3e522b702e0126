import { atScale } from "@stepwiser/config/test-scale";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient } from "../../src/client";
import type { SimCluster, SimFaultKind } from "../../src/sim";
import { metricSum, policyMessages, startTestCluster } from "./helpers";

/** 1,000 requests meet each kind of fault many times (about 20 hangs and 10 malformed bodies); the full scale sends 10,000. */
const TOTAL = atScale({ default: 1_000, full: 10_000 });
const FAULT_KINDS: readonly SimFaultKind[] = ["error5xx", "hang", "malformed"];
/**
 * How long a replica taken out after consecutive timeouts stays out before it is probed: the test's time
 * is mostly these waits, so the default scale waits a tenth of the pool's default (5 s, the full scale's).
 */
const HEALTH = atScale({ default: { downForMs: 500 }, full: {} });

describe(`${TOTAL.toLocaleString("en")} requests through injected faults`, () => {
  let cluster: SimCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({
      replicas: 2,
      timeScale: 200,
      capacity: { maxConcurrentSequences: 256 },
      faults: { error5xxRate: 0.1, hangRate: 0.02, malformedRate: 0.01, seed: 7 },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("all complete, each with exactly one result", async () => {
    const pool = new EndpointPool(
      cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 200 })),
      // A hung request is abandoned after a second and retried elsewhere.
      { timeouts: { headersMs: 1000, bodyIdleMs: 1000 }, health: HEALTH },
    );
    const client = new InferenceClient(pool, { retry: { maxAttempts: 12, baseDelayMs: 5, maxDelayMs: 200 } });
    const total = TOTAL;
    const results = new Map<number, string>();
    let duplicates = 0;
    try {
      await Promise.all(
        Array.from({ length: total }, async (_, i) => {
          const result = await client.generate({
            model: "sim-policy",
            prompt: { kind: "chat", messages: policyMessages(i % 50) },
            seed: i,
            maxTokens: 12,
          });
          if (results.has(i)) duplicates += 1;
          results.set(i, result.samples[0]!.text);
        }),
      );
    } finally {
      await pool.close();
    }
    expect(duplicates).toBe(0);
    expect(results.size).toBe(total);
    const usage = client.meter.snapshot();
    expect(usage.failedRequests).toBe(0);
    expect(usage.requests).toBe(total);
    // roughly 13 % of attempts fail, so there were on the order of 0.15 retries per request (1,500 for 10,000)
    expect(usage.retries).toBeGreaterThan(total * 0.08);
    // every reply is the model's text, none is a malformed body taken for an answer
    for (const text of results.values()) expect(text.startsWith("<chunk>")).toBe(true);
    await expect.poll(() => metricSum(cluster.urls, "vllm:num_requests_running"), { timeout: 3000 }).toBe(0);
    // Every kind of fault was met on the way, at this size too.
    for (const kind of FAULT_KINDS) expect(cluster.replicas.reduce((sum, r) => sum + r.metrics().faults[kind], 0), `${kind} faults injected`).toBeGreaterThan(0);
  }, 120_000);
});
