import { describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient } from "../../src/client";
import { buildStepwiserJudgePrompt } from "@stepwiser/core";
import { generateProblem } from "../../src/sim";
import { metricSum, startTestCluster } from "./helpers";

/** Runs prefixes × samples single-sample requests over 4 replicas and returns the cluster's prefix-cache hit rate. */
async function hitRate(withAffinity: boolean): Promise<number> {
  const cluster = await startTestCluster({ replicas: 4, timeScale: 200 });
  const pool = new EndpointPool(cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 64 })));
  const client = new InferenceClient(pool);
  try {
    const prefixes = 200;
    const samples = 16;
    await Promise.all(
      Array.from({ length: prefixes }, async (_, p) => {
        // 16 samples of one long prompt (a judge prompt with a 12-chunk history), as the rollouts of one prefix are.
        const judgePrompt = buildStepwiserJudgePrompt({
          problem: generateProblem(1000 + p).text,
          previousChunks: Array.from({ length: 12 }, (_, k) => `Step ${k + 1} of the shared reasoning for prefix ${p}: ${k} + ${p} = ${k + p}.`),
          chunk: `So the total is ${p} + 1 = ${p + 1}.`,
        });
        const prompt = { kind: "chat" as const, messages: [{ role: "user" as const, content: judgePrompt.text }] };
        for (let s = 0; s < samples; s++) {
          await client.generate({
            model: "arith-checker",
            prompt,
            seed: s,
            maxTokens: 1,
            // Without affinity every request gets its own key, so dispatch is by load alone.
            affinityKey: withAffinity ? `prefix-${p}` : `request-${p}-${s}`,
          });
        }
      }),
    );
    const queries = await metricSum(cluster.urls, "vllm:prefix_cache_queries_total");
    const hits = await metricSum(cluster.urls, "vllm:prefix_cache_hits_total");
    return hits / queries;
  } finally {
    await pool.close();
    await cluster.stop();
  }
}

describe("prefix affinity", () => {
  it("keeps each prefix on one replica: cache hit rate ≥ 90 %, against dispatch by load alone", async () => {
    const withAffinity = await hitRate(true);
    const withoutAffinity = await hitRate(false);
    console.info(`prefix-cache hit rate: ${(withAffinity * 100).toFixed(1)} % with affinity, ${(withoutAffinity * 100).toFixed(1)} % without`);
    expect(withAffinity).toBeGreaterThanOrEqual(0.9);
    expect(withAffinity).toBeGreaterThan(withoutAffinity);
  }, 60_000);
});
