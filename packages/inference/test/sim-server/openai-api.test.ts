import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimReplica } from "../../src/sim/server";
import { simTokenCount } from "../../src/sim/tokens";
import { renderChatPrompt } from "../../src/sim/server";
import { postJson, sseData, startTestReplica, word, words, type ChatChunk, type ChatChunkChoice, type ChatCompletion, type SimError, type TextChunk, type TextCompletion } from "./helpers";

let replica: SimReplica;
let chatUrl: string;
let completionsUrl: string;

beforeAll(async () => {
  replica = await startTestReplica();
  chatUrl = `${replica.url}/chat/completions`;
  completionsUrl = `${replica.url}/completions`;
});
afterAll(() => replica.stop());

const chat = (body: Record<string, unknown>) =>
  postJson(chatUrl, { model: "echo", messages: [{ role: "user", content: "hello" }], ...body });

describe("sim replica: OpenAI endpoints", () => {
  it("serves /health and /v1/models", async () => {
    const health = await fetch(`${replica.origin}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("");
    const models = (await (await fetch(`${replica.url}/models`)).json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(models.object).toBe("list");
    expect(models.data.map((m) => m.id)).toEqual(["echo", "long"]);
    expect(models.data[0]).toMatchObject({ object: "model", owned_by: "vllm" });
    expect(replica.url).toBe(`http://127.0.0.1:${replica.port}/v1`);
  });

  it("answers a chat completion in OpenAI's shape", async () => {
    const response = await chat({ seed: 7 });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const body = (await response.json()) as ChatCompletion;
    const text = "You said: hello (seed 7, temperature 1)";
    const promptText = renderChatPrompt([{ role: "user", content: "hello" }], { addGenerationPrompt: true, continueFinalMessage: false });
    expect(body).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/),
      object: "chat.completion",
      created: expect.any(Number),
      model: "echo",
      choices: [{ index: 0, message: { role: "assistant", content: text }, logprobs: null, finish_reason: "stop", stop_reason: null }],
      usage: {
        prompt_tokens: simTokenCount(promptText),
        completion_tokens: simTokenCount(text),
        total_tokens: simTokenCount(promptText) + simTokenCount(text),
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(5);
  });

  it("answers a text completion in OpenAI's shape, counting the raw prompt", async () => {
    const response = await postJson(completionsUrl, { model: "echo", prompt: "Once upon a time", seed: 3, temperature: 0.5 });
    const body = (await response.json()) as TextCompletion;
    expect(body.object).toBe("text_completion");
    expect(body.id).toMatch(/^cmpl-/);
    expect(body.choices).toEqual([
      { index: 0, text: "You said: Once upon a time (seed 3, temperature 0.5)", logprobs: null, finish_reason: "stop", stop_reason: null },
    ]);
    expect(body.usage.prompt_tokens).toBe(4);
  });

  it("returns n choices; sample i with seed s equals sample 0 with seed s + i", async () => {
    const many = (await (await chat({ n: 3, seed: 100 })).json()) as ChatCompletion;
    expect(many.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    const texts = many.choices.map((c) => c.message.content);
    expect(texts[2]).toContain("seed 102");
    const again = (await (await chat({ n: 3, seed: 100 })).json()) as ChatCompletion;
    expect(again.choices.map((c) => c.message.content)).toEqual(texts);
    const single = (await (await chat({ seed: 101 })).json()) as ChatCompletion;
    expect(single.choices[0]!.message.content).toBe(texts[1]);
    // The prompt counts once per request, completions add up over the choices.
    expect(many.usage.prompt_tokens).toBe(single.usage.prompt_tokens);
    expect(many.usage.completion_tokens).toBe(texts.reduce((sum, t) => sum + simTokenCount(t), 0));
  });

  it("draws random seeds without a seed", async () => {
    const body = (await (await chat({ n: 4 })).json()) as ChatCompletion;
    expect(new Set(body.choices.map((c) => c.message.content)).size).toBeGreaterThan(1);
  });

  it("cuts before the first stop string and reports it", async () => {
    const body = (await (
      await postJson(completionsUrl, { model: "long", prompt: "x", stop: ["never", "</chunk>"], seed: 1 })
    ).json()) as TextCompletion;
    const choice = body.choices[0]!;
    expect(choice.finish_reason).toBe("stop");
    expect(choice.stop_reason).toBe("</chunk>");
    expect(choice.text).toBe(`${words(200)} `);
    // The stop string's tokens were decoded, so they count (as in vLLM).
    expect(body.usage.completion_tokens).toBe(simTokenCount(`${choice.text}</chunk>`));

    const single = (await (await postJson(completionsUrl, { model: "long", prompt: "x", stop: word(3), seed: 1 })).json()) as TextCompletion;
    expect(single.choices[0]).toMatchObject({ text: `${words(3)} `, stop_reason: word(3), finish_reason: "stop" });
  });

  it("stops at max_tokens with finish_reason length", async () => {
    const body = (await (await postJson(completionsUrl, { model: "long", prompt: "x", max_tokens: 5 })).json()) as TextCompletion;
    expect(body.choices[0]).toMatchObject({ text: words(5), finish_reason: "length", stop_reason: null });
    expect(body.usage.completion_tokens).toBe(5);
    const chatBody = (await (await chat({ model: "long", max_completion_tokens: 2 })).json()) as ChatCompletion;
    expect(chatBody.choices[0]).toMatchObject({ message: { content: words(2) }, finish_reason: "length" });
  });

  it("a stop string within max_tokens wins over length", async () => {
    const body = (await (await postJson(completionsUrl, { model: "long", prompt: "x", max_tokens: 3, stop: [word(2)] })).json()) as TextCompletion;
    expect(body.choices[0]).toMatchObject({ text: `${words(2)} `, finish_reason: "stop", stop_reason: word(2) });
  });

  it("streams chat chunks at token pace and ends with usage and [DONE]", async () => {
    const response = await chat({ model: "long", n: 2, seed: 5, stream: true, stream_options: { include_usage: true }, stop: ["</chunk>"] });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as ChatChunk);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    const texts = ["", ""];
    const finishes: ChatChunkChoice[] = [];
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk).toMatchObject({ object: "chat.completion.chunk", model: "long", id: chunks[0]!.id, usage: null });
      expect(chunk.choices).toHaveLength(1);
      const choice = chunk.choices[0]!;
      texts[choice.index] += choice.delta.content ?? "";
      if (choice.finish_reason) finishes.push(choice);
    }
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    // Many chunks: the text arrives over time, not at once.
    expect(chunks.length).toBeGreaterThan(10);
    expect(finishes.map((f) => [f.index, f.finish_reason, f.stop_reason]).sort()).toEqual([
      [0, "stop", "</chunk>"],
      [1, "stop", "</chunk>"],
    ]);
    const plain = (await (await chat({ model: "long", n: 2, seed: 5, stop: ["</chunk>"] })).json()) as ChatCompletion;
    expect(texts).toEqual(plain.choices.map((c) => c.message.content));
    expect(usageChunk.usage?.completion_tokens).toBe(plain.usage.completion_tokens);
  });

  it("streams text completions without a usage field unless asked", async () => {
    const response = await postJson(completionsUrl, { model: "long", prompt: "x", max_tokens: 20, stream: true });
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as TextChunk);
    expect(chunks.every((c) => c.object === "text_completion" && !("usage" in c))).toBe(true);
    expect(chunks.map((c) => c.choices[0]!.text).join("")).toBe(words(20));
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ finish_reason: "length", stop_reason: null });
  });

  it("continues a final assistant message, and rejects it when the last message is not the assistant's", async () => {
    const messages = [
      { role: "user", content: "Solve it" },
      { role: "assistant", content: "Step 1:" },
    ];
    const ok = await chat({ messages, continue_final_message: true, add_generation_prompt: false });
    expect(ok.status).toBe(200);
    const okBody = (await ok.json()) as ChatCompletion;
    const promptText = renderChatPrompt(messages as never, { addGenerationPrompt: false, continueFinalMessage: true });
    expect(okBody.usage.prompt_tokens).toBe(simTokenCount(promptText));

    const notAssistant = await chat({ messages: [{ role: "user", content: "x" }], continue_final_message: true });
    expect(notAssistant.status).toBe(400);
    expect(((await notAssistant.json()) as SimError).error.message).toMatch(/continue_final_message/);

    const both = await chat({ messages, continue_final_message: true, add_generation_prompt: true });
    expect(both.status).toBe(400);
    expect(((await both.json()) as SimError).error.message).toMatch(/add_generation_prompt/);
  });

  it("returns vLLM's 404 for an unknown model", async () => {
    const response = await chat({ model: "gpt-9" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: "The model `gpt-9` does not exist.", type: "NotFoundError", param: null, code: 404 },
    });
  });

  it.each([
    [{ n: 0 }, /^n: /],
    [{ temperature: -1 }, /^temperature: /],
    [{ max_tokens: 1.5 }, /^max_tokens: /],
    [{ messages: [] }, /^messages: /],
    [{ messages: [{ role: "robot", content: "x" }] }, /^messages\.0\.role: /],
    [{ stop: 3 }, /^stop: /],
    [{ model: 3 }, /^model: /],
    [{ stream_options: { include_usage: true } }, /stream=True/],
    [{ max_tokens: 40_000 }, /maximum context length/],
  ])("rejects a bad body %j with 400 naming the field", async (patch, message) => {
    const response = await chat(patch);
    expect(response.status).toBe(400);
    const body = (await response.json()) as SimError;
    expect(body.error).toMatchObject({ type: "BadRequestError", code: 400 });
    expect(body.error.message).toMatch(message);
  });

  it("rejects invalid JSON, a non-string prompt and a prompt the model refuses", async () => {
    const invalid = await fetch(chatUrl, { method: "POST", body: "{not json" });
    expect(invalid.status).toBe(400);
    const prompt = await postJson(completionsUrl, { model: "echo", prompt: ["a"] });
    expect(prompt.status).toBe(400);
    expect(((await prompt.json()) as SimError).error.message).toMatch(/^prompt: /);
    const refused = await chat({ messages: [{ role: "user", content: "an unanswerable question" }] });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as SimError).error.message).toMatch(/echo model/);
  });

  it("answers unknown routes and methods like FastAPI", async () => {
    expect((await fetch(`${replica.origin}/v1/nothing`)).status).toBe(404);
    expect((await fetch(chatUrl)).status).toBe(405);
    expect((await fetch(`${replica.url}/models`, { method: "POST" })).status).toBe(405);
  });
});
