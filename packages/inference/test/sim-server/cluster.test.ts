import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { parseSimClusterConfig, startSimCluster } from "../../src/sim/server";
import { postJson, TEST_MODELS, type TextCompletion } from "./helpers";

/** A port p such that p..p+count-1 were free a moment ago. */
async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const servers = [];
    try {
      for (let i = 0; i < count; i++) {
        const server = createServer();
        await new Promise<void>((resolve, reject) => server.once("error", reject).listen(base + i, "127.0.0.1", resolve));
        servers.push(server);
      }
      return base;
    } catch {
      // taken: try another range
    } finally {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  }
  throw new Error("no free port range");
}

describe("sim cluster", () => {
  it("starts replicas on distinct random ports, each with its own queue and cache", async () => {
    const cluster = await startSimCluster({ replicas: 3, models: TEST_MODELS, timeScale: 50 });
    try {
      const ports = cluster.replicas.map((r) => r.port);
      expect(new Set(ports).size).toBe(3);
      expect(cluster.urls).toEqual(ports.map((p) => `http://127.0.0.1:${p}/v1`));
      for (const url of cluster.urls) {
        const response = await postJson(`${url}/completions`, { model: "echo", prompt: "hi", seed: 1 });
        expect(((await response.json()) as TextCompletion).choices[0]!.text).toBe("You said: hi (seed 1, temperature 1)");
      }
      expect(cluster.replicas.map((r) => r.metrics().models.echo!.promptTokens)).toEqual([1, 1, 1]);
    } finally {
      await cluster.stop();
    }
    await expect(fetch(`${cluster.urls[0]}/models`)).rejects.toThrow();
  });

  it("uses consecutive ports from basePort", async () => {
    const basePort = await freePortRange(2);
    const cluster = await startSimCluster({ replicas: 2, basePort, models: TEST_MODELS });
    try {
      expect(cluster.replicas.map((r) => r.port)).toEqual([basePort, basePort + 1]);
      expect((await fetch(`http://127.0.0.1:${basePort + 1}/health`)).status).toBe(200);
      // A port already taken fails the start and leaves nothing running.
      await expect(startSimCluster({ replicas: 2, basePort: basePort + 1, models: TEST_MODELS })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await cluster.stop();
    }
  });

  it("validates the configuration with defaults, naming a bad field", () => {
    const config = parseSimClusterConfig({});
    expect(config).toMatchObject({
      replicas: 1,
      host: "127.0.0.1",
      timeScale: 1,
      capacity: { maxConcurrentSequences: 256, prefillTokensPerSecond: 20_000, decodeTokensPerSecondPerSequence: 40 },
      faults: { error5xxRate: 0, seed: 1 },
    });
    expect(parseSimClusterConfig({ capacity: { maxConcurrentSequences: 8 } }).capacity.decodeTokensPerSecondPerSequence).toBe(40);
    expect(() => parseSimClusterConfig({ replicas: 0 })).toThrow(/replicas/);
    expect(() => parseSimClusterConfig({ capacity: { maxConcurentSequences: 8 } })).toThrow(/maxConcurentSequences/);
    expect(() => parseSimClusterConfig({ faults: { dropRate: 2 } })).toThrow(/faults\.dropRate/);
  });
});
