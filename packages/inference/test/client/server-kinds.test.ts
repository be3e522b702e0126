import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient, type GenerationRequest } from "../../src/client";
import { serverKindOfModelList } from "../../src";
import type { SimCluster } from "../../src/sim";
import { policyMessages, startTestCluster } from "./helpers";

/**
 * vLLM gives sample i of a seeded request with n samples the seed seed + i;
 * SGLang gives every parallel sample the request's seed, so they may be
 * identical. The simulated cluster answers in either dialect; the client asks
 * the server who it is and, where samples would share a seed, sends n requests
 * with seeds seed + i.
 */
describe("server kinds: per-sample seeds on vLLM and SGLang", () => {
  let vllm: SimCluster;
  let sglang: SimCluster;
  const pools: EndpointPool[] = [];
  const clientOf = (cluster: SimCluster, serverKind?: "auto" | "vllm" | "sglang") => {
    const pool = new EndpointPool(cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 16 })));
    pools.push(pool);
    return new InferenceClient(pool, { serverKind });
  };
  const request = (seed: number, n: number): GenerationRequest => ({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(5) }, n, seed, temperature: 1 });

  beforeAll(async () => {
    vllm = await startTestCluster({ replicas: 1, timeScale: 200 });
    sglang = await startTestCluster({ replicas: 2, timeScale: 200, dialect: "sglang" });
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
    await vllm?.stop();
    await sglang?.stop();
  });

  it("reads the server kind from the model list's owned_by", async () => {
    expect(await clientOf(vllm).serverKind()).toBe("vllm");
    expect(await clientOf(sglang).serverKind()).toBe("sglang");
    expect(await clientOf(sglang, "vllm").serverKind()).toBe("vllm"); // a setting is taken as it is
    expect(serverKindOfModelList({ data: [{ id: "gpt", owned_by: "openai" }] })).toBe("openai-compatible");
    expect(serverKindOfModelList({ data: [{ id: "a", owned_by: "vllm" }, { id: "b", owned_by: "sglang" }] })).toBe("openai-compatible");
    expect(serverKindOfModelList({ data: [] })).toBe("openai-compatible");
    expect(serverKindOfModelList("not json")).toBe("openai-compatible");
  });

  it("one seeded request with n samples on SGLang gives n identical samples: what the client must not send", async () => {
    const forced = await clientOf(sglang, "vllm").generate(request(7, 4));
    expect(new Set(forced.samples.map((s) => s.text)).size).toBe(1);
  });

  it("on SGLang, K samples of one prompt differ, are reproducible, and are the samples vLLM gives for the same seed", async () => {
    const client = clientOf(sglang);
    const first = await client.generate(request(7, 4));
    expect(first.samples.map((s) => [s.index, s.seed])).toEqual([[0, 7], [1, 8], [2, 9], [3, 10]]);
    expect(new Set(first.samples.map((s) => s.text)).size).toBeGreaterThan(1);
    const again = await client.generate(request(7, 4));
    expect(again.samples.map((s) => s.text)).toEqual(first.samples.map((s) => s.text));
    const onVllm = await clientOf(vllm).generate(request(7, 4));
    expect(onVllm.samples.map((s) => s.text)).toEqual(first.samples.map((s) => s.text));
    // Four requests were sent, their tokens added up.
    expect(first.usage.promptTokens).toBe(onVllm.usage.promptTokens * 4);
    expect(first.usage.completionTokens).toBe(onVllm.usage.completionTokens);
  });

  it("sends the K requests to one replica, where its prefix cache serves them", async () => {
    const client = clientOf(sglang);
    const before = sglang.replicas.map((replica) => replica.metrics().requests);
    await client.generate(request(21, 6));
    const sent = sglang.replicas.map((replica, i) => replica.metrics().requests - before[i]!);
    expect(sent.toSorted()).toEqual([0, 6]);
  });

  it("streams fanned-out samples under their own indexes, ending with the merged result", async () => {
    const client = clientOf(sglang);
    const texts = ["", "", ""];
    let done: Awaited<ReturnType<InferenceClient["generate"]>> | undefined;
    for await (const event of client.stream(request(7, 3))) {
      if (event.type === "delta") texts[event.index] += event.text;
      else done = event.result;
    }
    const json = await client.generate(request(7, 3));
    expect(texts).toEqual(json.samples.map((s) => s.text));
    expect(done!.samples.map((s) => s.text)).toEqual(texts);
  });

  it("keeps one request with n samples where the server derives the seeds (vLLM), and without a seed anywhere", async () => {
    const before = vllm.replicas[0]!.metrics().requests;
    await clientOf(vllm).generate(request(3, 4));
    expect(vllm.replicas[0]!.metrics().requests - before).toBe(1);
    const sglangBefore = sglang.replicas.reduce((sum, replica) => sum + replica.metrics().requests, 0);
    const unseeded = await clientOf(sglang).generate({ ...request(3, 4), seed: undefined });
    expect(unseeded.samples).toHaveLength(4);
    expect(sglang.replicas.reduce((sum, replica) => sum + replica.metrics().requests, 0) - sglangBefore).toBe(1);
  });

  it("treats a server whose model list cannot be read as one that does not derive seeds", async () => {
    const pool = new EndpointPool([{ baseUrl: "http://127.0.0.1:9/v1", maxInFlight: 1 }]);
    pools.push(pool);
    expect(await new InferenceClient(pool).serverKind()).toBe("openai-compatible");
  });
});
