import { afterEach, describe, expect, it } from "vitest";
import type { SimReplica } from "../../src/sim/server";
import { longModel, postJson, scrape, startTestReplica, TEST_MODELS, waitFor, words, type ChatCompletion, type TextCompletion } from "./helpers";

const started: SimReplica[] = [];
async function replicaWith(options: Parameters<typeof startTestReplica>[0]): Promise<SimReplica> {
  const replica = await startTestReplica(options);
  started.push(replica);
  return replica;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop()));
});

const metric = (samples: Map<string, number>, name: string, model = "long") => samples.get(`vllm:${name}{model_name="${model}"}`);

/** A system prompt of ~300 tokens shared by every request, as rollouts of one solution share theirs. */
const SYSTEM = `You grade solutions. ${words(300)}`;
const chatWithSystem = (url: string, user: string, extra: Record<string, unknown> = {}) =>
  postJson(`${url}/chat/completions`, {
    model: "long",
    max_tokens: 4,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: user },
    ],
    ...extra,
  });

describe("sim replica: metrics", () => {
  it("exposes vLLM's metric names with HELP/TYPE lines and a model_name label per model", async () => {
    const replica = await replicaWith({});
    const response = await postJson(`${replica.url}/completions`, { model: "long", prompt: "count these five tokens", max_tokens: 7 });
    const body = (await response.json()) as TextCompletion;
    const exposition = await (await fetch(`${replica.origin}/metrics`)).text();
    for (const [name, type] of [
      ["vllm:num_requests_running", "gauge"],
      ["vllm:num_requests_waiting", "gauge"],
      ["vllm:kv_cache_usage_perc", "gauge"],
      ["vllm:prefix_cache_queries_total", "counter"],
      ["vllm:prefix_cache_hits_total", "counter"],
      ["vllm:prompt_tokens_total", "counter"],
      ["vllm:generation_tokens_total", "counter"],
    ]) {
      expect(exposition).toContain(`# HELP ${name} `);
      expect(exposition).toContain(`# TYPE ${name} ${type}\n`);
      for (const model of TEST_MODELS) expect(exposition).toMatch(new RegExp(`^${name}\\{model_name="${model.id}"\\} \\d`, "m"));
    }
    const samples = await scrape(replica);
    expect(metric(samples, "prompt_tokens_total")).toBe(body.usage.prompt_tokens);
    expect(metric(samples, "prefix_cache_queries_total")).toBe(body.usage.prompt_tokens);
    expect(metric(samples, "generation_tokens_total")).toBe(7);
    expect(metric(samples, "num_requests_running")).toBe(0);
    expect(metric(samples, "generation_tokens_total", "echo")).toBe(0);
    expect(replica.metrics().models.long).toMatchObject({ promptTokens: body.usage.prompt_tokens, generationTokens: 7, running: 0 });
  });
});

describe("sim replica: prefix cache", () => {
  it("hits on a repeated prefix in whole 16-token blocks and reports cached_tokens", async () => {
    const replica = await replicaWith({});
    const first = (await (await chatWithSystem(replica.url, "first question")).json()) as ChatCompletion;
    expect(first.usage.prompt_tokens_details!.cached_tokens).toBe(0);
    const second = (await (await chatWithSystem(replica.url, "a different question")).json()) as ChatCompletion;
    const cached = second.usage.prompt_tokens_details!.cached_tokens;
    expect(cached % 16).toBe(0);
    // The shared system message is ~300 tokens: all its whole blocks but the one it shares with the user turn.
    expect(cached).toBeGreaterThanOrEqual(288);
    expect(cached).toBeLessThan(second.usage.prompt_tokens);
    const samples = await scrape(replica);
    expect(metric(samples, "prefix_cache_hits_total")).toBe(cached);
    expect(metric(samples, "prefix_cache_queries_total")).toBe(first.usage.prompt_tokens + second.usage.prompt_tokens);
  });

  it("serves the n samples of a request and concurrent requests admitted after the first from the cache", async () => {
    const replica = await replicaWith({});
    const first = (await (await chatWithSystem(replica.url, "same question", { n: 4 })).json()) as ChatCompletion;
    // cached_tokens is the prompt's, counted once per request like prompt_tokens: the first sequence missed.
    expect(first.usage.prompt_tokens_details!.cached_tokens).toBe(0);
    const whole = 16 * Math.floor((first.usage.prompt_tokens - 1) / 16);
    expect(replica.metrics().models.long!.prefixCacheHits).toBe(3 * whole);

    const concurrent = await Promise.all(Array.from({ length: 16 }, (_, i) => chatWithSystem(replica.url, `question ${i}`)));
    for (const response of concurrent) expect(((await response.json()) as ChatCompletion).usage.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
  });

  it("sends no prompt_tokens_details when told not to report cached tokens, as servers without their cache-report flags do", async () => {
    const replica = await replicaWith({ reportCachedTokens: false });
    await chatWithSystem(replica.url, "first question");
    const second = (await (await chatWithSystem(replica.url, "a different question")).json()) as ChatCompletion;
    expect(second.usage.prompt_tokens_details).toBeNull();
    // The cache still served the shared prefix: only the report is missing.
    expect(metric(await scrape(replica), "prefix_cache_hits_total")).toBeGreaterThan(0);
  });

  it("makes a cached prompt's prefill faster", async () => {
    const replica = await replicaWith({ timeScale: 1, capacity: { prefillTokensPerSecond: 2_000, tickMs: 5 } });
    const prompt = `${words(300)} end`;
    const timed = async () => {
      const start = performance.now();
      await (await postJson(`${replica.url}/completions`, { model: "long", prompt, max_tokens: 1 })).json();
      return performance.now() - start;
    };
    const cold = await timed();
    const warm = await timed();
    expect(cold).toBeGreaterThanOrEqual(140); // ~302 tokens at 2,000 tokens/s
    expect(warm).toBeLessThan(cold / 2);
  });
});

describe("sim replica: capacity", () => {
  it("queues sequences beyond maxConcurrentSequences and serves them at the decode rate", async () => {
    // 40 tokens at 40 tokens/s = 1 simulated second = 100 ms at timeScale 10.
    const replica = await replicaWith({ timeScale: 10, capacity: { maxConcurrentSequences: 1, tickMs: 5 } });
    const start = performance.now();
    const finishedAt: number[] = [];
    const requests = [0, 1, 2].map(async (i) => {
      const response = await postJson(`${replica.url}/completions`, { model: "long", prompt: `request ${i}`, max_tokens: 40 });
      await response.json();
      finishedAt[i] = performance.now() - start;
    });
    await waitFor(() => replica.metrics().models.long!.running === 1 && replica.metrics().models.long!.waiting === 2, 2_000);
    const samples = await scrape(replica);
    expect(metric(samples, "num_requests_running")).toBe(1);
    expect(metric(samples, "num_requests_waiting")).toBe(2);
    await Promise.all(requests);
    // First come, first served, one after another.
    expect(finishedAt[0]).toBeLessThan(finishedAt[1]!);
    expect(finishedAt[1]).toBeLessThan(finishedAt[2]!);
    expect(finishedAt[2]).toBeGreaterThanOrEqual(290);
    expect(finishedAt[2]).toBeLessThan(1_000);
  });

  it("delivers maxConcurrentSequences × decode rate in waves (n counts as n sequences)", async () => {
    const replica = await replicaWith({ timeScale: 20, capacity: { maxConcurrentSequences: 4, tickMs: 5 } });
    const start = performance.now();
    // 12 sequences of 40 tokens on 4 slots: 3 waves of 50 ms.
    await Promise.all(
      [0, 1, 2, 3].map(async (i) => (await postJson(`${replica.url}/completions`, { model: "long", prompt: `p${i}`, n: 3, max_tokens: 40 })).json()),
    );
    const elapsed = performance.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(145);
    expect(elapsed).toBeLessThan(900);
    expect(replica.metrics().models.long!.generationTokens).toBe(480);
  });

  it("streams tokens at the decode pace", async () => {
    const replica = await replicaWith({ timeScale: 10, capacity: { tickMs: 5 } });
    const start = performance.now();
    const response = await postJson(`${replica.url}/completions`, { model: "long", prompt: "x", max_tokens: 60, stream: true });
    const reader = response.body!.getReader();
    let firstChunkAt = 0;
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!firstChunkAt) firstChunkAt = performance.now() - start;
      text += new TextDecoder().decode(value);
    }
    const total = performance.now() - start;
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    // 60 tokens at 400 tokens/s of real time: 150 ms, of which the first token is a small part.
    expect(total).toBeGreaterThanOrEqual(140);
    expect(total).toBeLessThan(1_000);
    expect(firstChunkAt).toBeLessThan(total / 2);
  });

  it("reports KV cache usage of running sequences", async () => {
    const replica = await replicaWith({ models: [longModel("long", 5_000)], timeScale: 1, capacity: { kvCacheTokens: 10_000 } });
    const controller = new AbortController();
    const pending = postJson(`${replica.url}/completions`, { model: "long", prompt: words(500) }, controller.signal).catch(() => null);
    await waitFor(async () => (metric(await scrape(replica), "kv_cache_usage_perc") ?? 0) >= 0.05);
    const usage = metric(await scrape(replica), "kv_cache_usage_perc")!;
    expect(usage).toBeLessThan(0.2);
    controller.abort();
    await pending;
    await waitFor(() => replica.metrics().models.long!.kvCacheUsage === 0);
  });
});

describe("sim replica: cancellation", () => {
  it("frees a streaming request's sequences when the client disconnects", async () => {
    const replica = await replicaWith({ models: [longModel("long", 5_000)], timeScale: 1 });
    const controller = new AbortController();
    const response = await postJson(`${replica.url}/chat/completions`, {
      model: "long",
      n: 3,
      stream: true,
      messages: [{ role: "user", content: "go on forever" }],
    }, controller.signal);
    const reader = response.body!.getReader();
    await reader.read();
    expect(metric(await scrape(replica), "num_requests_running")).toBe(3);
    controller.abort();
    await waitFor(async () => metric(await scrape(replica), "num_requests_running") === 0, 2_000);
    // Only the tokens decoded before the abort count.
    expect(replica.metrics().models.long!.generationTokens).toBeLessThan(3 * 5_000);
  });

  it("frees a waiting and a running non-streaming request when their clients give up", async () => {
    const replica = await replicaWith({ models: [longModel("long", 5_000)], timeScale: 1, capacity: { maxConcurrentSequences: 1 } });
    const controller = new AbortController();
    const requests = [0, 1].map((i) =>
      postJson(`${replica.url}/completions`, { model: "long", prompt: `p${i}` }, controller.signal).catch((e: Error) => e),
    );
    await waitFor(() => replica.metrics().models.long!.waiting === 1);
    controller.abort();
    for (const result of await Promise.all(requests)) expect(result).toBeInstanceOf(Error);
    await waitFor(() => replica.metrics().models.long!.running === 0 && replica.metrics().models.long!.waiting === 0, 2_000);
  });
});
