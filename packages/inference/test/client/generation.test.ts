import { parseChunkTags } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient, UsageMeter } from "../../src/client";
import { generateProblem, truthOfSolution, type SimCluster } from "../../src/sim";
import { metricSum, policyMessages, startTestCluster } from "./helpers";

describe("inference client against the simulated cluster over HTTP", () => {
  let cluster: SimCluster;
  let pool: EndpointPool;
  let client: InferenceClient;

  beforeAll(async () => {
    // Decode fast in real time; a slow model is started separately for cancellation.
    cluster = await startTestCluster({ replicas: 1, timeScale: 50 });
    pool = new EndpointPool(cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 32 })));
    client = new InferenceClient(pool);
  });
  afterAll(async () => {
    await pool?.close();
    await cluster?.stop();
  });

  it("continues a partial assistant message from a chunk prefix", async () => {
    const seed = 11;
    const messages = policyMessages(seed);
    const full = await client.generate({ model: "sim-policy", prompt: { kind: "chat", messages }, seed: 1, temperature: 0 });
    const chunks = parseChunkTags(full.samples[0]!.text).map((c) => c.text);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const prefix = `<chunk>${chunks[0]}</chunk>\n`;

    const continued = await client.generate({
      model: "sim-policy",
      prompt: { kind: "chat", messages: [...messages, { role: "assistant", content: prefix }], continueFinalMessage: true },
      seed: 1,
      temperature: 0,
    });
    const text = continued.samples[0]!.text;
    expect(text).not.toContain(chunks[0]!); // a continuation, not a restart
    const whole = parseChunkTags(prefix + text).map((c) => c.text);
    expect(whole).toEqual(chunks); // greedy decoding continues exactly as the full run did
    expect(truthOfSolution(generateProblem(seed), whole).firstErrorIndex).toBe(-1);
  });

  it("returns n samples whose sample i is reproducible with seed + i", async () => {
    const prompt = { kind: "chat" as const, messages: policyMessages(12) };
    const four = await client.generate({ model: "sim-policy", prompt, n: 4, seed: 100, temperature: 1 });
    expect(four.samples.map((s) => s.seed)).toEqual([100, 101, 102, 103]);
    for (const sample of four.samples) {
      const alone = await client.generate({ model: "sim-policy", prompt, n: 1, seed: sample.seed!, temperature: 1 });
      expect(alone.samples[0]!.text).toBe(sample.text);
    }
    const again = await client.generate({ model: "sim-policy", prompt, n: 4, seed: 100, temperature: 1 });
    expect(again.samples.map((s) => s.text)).toEqual(four.samples.map((s) => s.text));
  });

  it("stops before a stop string and says which one", async () => {
    const result = await client.generate({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(13) }, seed: 3, stop: ["</chunk>"] });
    const sample = result.samples[0]!;
    expect(sample.text.startsWith("<chunk>")).toBe(true);
    expect(sample.text).not.toContain("</chunk>");
    expect(sample).toMatchObject({ finishReason: "stop", stopReason: "</chunk>" });

    const cut = await client.generate({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(13) }, seed: 3, maxTokens: 5 });
    expect(cut.samples[0]).toMatchObject({ finishReason: "length" });
    expect(cut.usage.completionTokens).toBe(5);
  });

  it("works with raw-prompt completions too", async () => {
    const prompt = policyMessages(14)[0]!.content + "\n";
    const result = await client.generate({ model: "sim-policy", prompt: { kind: "completion", prompt }, seed: 5, stop: ["</chunk>"] });
    expect(result.samples[0]!.text).toContain("<chunk>");
  });

  it("streams the same text it would return at once, then the usage", async () => {
    const request = { model: "sim-policy", prompt: { kind: "chat" as const, messages: policyMessages(15) }, seed: 9, n: 2 };
    const whole = await client.generate(request);
    const streamed = ["", ""];
    let done;
    for await (const event of client.stream(request)) {
      if (event.type === "delta") streamed[event.index] += event.text;
      else done = event.result;
    }
    expect(streamed).toEqual(whole.samples.map((s) => s.text));
    expect(done!.usage.completionTokens).toBe(whole.usage.completionTokens);
    expect(done!.samples.map((s) => s.finishReason)).toEqual(["stop", "stop"]);
  });

  it("accounts prompt, completion and cached prompt tokens", async () => {
    const meter = new UsageMeter();
    const prompt = { kind: "chat" as const, messages: policyMessages(16) };
    const first = await client.generate({ model: "sim-policy", prompt, seed: 1, meter });
    const second = await client.generate({ model: "sim-policy", prompt, seed: 2, meter });
    expect(first.usage.promptTokens).toBeGreaterThan(32);
    expect(second.usage.cachedPromptTokens).toBeGreaterThan(0);
    expect(second.usage.cachedPromptTokens).toBeLessThanOrEqual(second.usage.promptTokens);
    const snapshot = meter.snapshot();
    expect(snapshot).toMatchObject({ requests: 2, failedRequests: 0, retries: 0 });
    expect(snapshot.promptTokens).toBe(first.usage.promptTokens + second.usage.promptTokens);
    expect(snapshot.cachedPromptTokens).toBe(first.usage.cachedPromptTokens + second.usage.cachedPromptTokens);
    expect(snapshot.completionTokens).toBe(first.usage.completionTokens + second.usage.completionTokens);
  });

  it("surfaces a non-retryable 4xx as a typed error without retrying", async () => {
    await expect(client.generate({ model: "no-such-model", prompt: { kind: "chat", messages: policyMessages(1) } })).rejects.toMatchObject({
      name: "InferenceError",
      kind: "http",
      status: 404,
      retryable: false,
    });
  });
});

describe("cancellation", () => {
  it("aborting a run frees the server's sequences", async () => {
    // Real time, slow decode: a generation would take many seconds.
    const cluster = await startTestCluster({ replicas: 1, timeScale: 1, capacity: { decodeTokensPerSecondPerSequence: 5 } });
    const pool = new EndpointPool([{ baseUrl: cluster.urls[0]!, maxInFlight: 16 }]);
    const client = new InferenceClient(pool);
    try {
      const run = new AbortController();
      const pending = Array.from({ length: 6 }, (_, i) =>
        client.generate({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(20 + i) }, n: 2, seed: i, signal: run.signal }),
      );
      const streaming = (async () => {
        for await (const event of client.stream({ model: "sim-policy", prompt: { kind: "chat", messages: policyMessages(30) }, signal: run.signal })) void event;
      })();
      await expect.poll(() => metricSum(cluster.urls, "vllm:num_requests_running"), { timeout: 5000 }).toBe(13);
      run.abort();
      const outcomes = await Promise.allSettled([...pending, streaming]);
      expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
      expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ kind: "cancelled" });
      await expect.poll(() => metricSum(cluster.urls, "vllm:num_requests_running"), { timeout: 2000 }).toBe(0);
    } finally {
      await pool.close();
      await cluster.stop();
    }
  });
});
