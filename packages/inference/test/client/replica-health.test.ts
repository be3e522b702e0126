import { describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient } from "../../src/client";
import { createSimModels, startSimReplica } from "../../src/sim";
import { policyMessages } from "./helpers";

describe("replica health", () => {
  it("routes around a replica that went away and takes it back once /v1/models answers again", async () => {
    const models = createSimModels();
    const first = await startSimReplica({ models, timeScale: 100 });
    let second = await startSimReplica({ models, timeScale: 100 });
    const secondPort = second.port;
    const pool = new EndpointPool(
      [
        { baseUrl: first.url, maxInFlight: 8 },
        { baseUrl: second.url, maxInFlight: 8 },
      ],
      { health: { failuresToMarkDown: 2, downForMs: 200 }, timeouts: { connectMs: 500 } },
    );
    const client = new InferenceClient(pool, { retry: { baseDelayMs: 5, maxDelayMs: 50 } });
    try {
      await second.stop();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => client.generate({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(i) }, seed: i, maxTokens: 8 })),
      );
      expect(results).toHaveLength(40);
      expect(results.every((r) => r.replica === first.url)).toBe(true);
      expect(pool.status().find((s) => s.baseUrl.includes(`:${secondPort}/`))).toMatchObject({ healthy: false });

      second = await startSimReplica({ models, timeScale: 100, port: secondPort });
      await expect.poll(() => pool.status().every((s) => s.healthy), { timeout: 3000 }).toBe(true);
      const after = await Promise.all(
        Array.from({ length: 40 }, (_, i) => client.generate({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(i) }, seed: i, maxTokens: 8, affinityKey: `k${i}` })),
      );
      expect(new Set(after.map((r) => r.replica)).size).toBe(2);
    } finally {
      await pool.close();
      await first.stop();
      await second.stop();
    }
  });
});
