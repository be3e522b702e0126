import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient } from "../../src/client";

/**
 * SGLang names the stop string a choice ended on `matched_stop`, not vLLM's
 * `stop_reason` (`CompletionResponseChoice` and the chat choices of
 * sgl-project/sglang python/sglang/srt/entrypoints/openai/protocol.py:
 * `matched_stop: Union[None, int, str]`). A server answering in that shape.
 */
describe("a server that reports stops as SGLang does", () => {
  let server: Server;
  let client: InferenceClient;
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
        const chat = request.url?.endsWith("/chat/completions");
        const choices = [
          { index: 0, finish_reason: "stop", matched_stop: "```output", ...(chat ? { message: { role: "assistant", content: "```python\nprint(2)\n" } } : { text: "```python\nprint(2)\n" }) },
          { index: 1, finish_reason: "stop", matched_stop: 151645, ...(chat ? { message: { role: "assistant", content: "done" } } : { text: "done" }) },
          { index: 2, finish_reason: "length", matched_stop: null, ...(chat ? { message: { role: "assistant", content: "cut" } } : { text: "cut" }) },
        ];
        const n = (JSON.parse(body) as { n?: number }).n ?? 1;
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ id: "x", object: chat ? "chat.completion" : "text_completion", model: "m", choices: choices.slice(0, n), usage }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    client = new InferenceClient(new EndpointPool([{ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxInFlight: 4 }]));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("reads the stop string, the stop token and no stop from matched_stop, in chat and completions", async () => {
    for (const prompt of [{ kind: "chat" as const, messages: [{ role: "user" as const, content: "q" }] }, { kind: "completion" as const, prompt: "q" }]) {
      const result = await client.generate({ model: "m", prompt, n: 3, temperature: 1, stop: ["```output"] });
      expect(result.samples.map((s) => ({ finishReason: s.finishReason, stopReason: s.stopReason }))).toEqual([
        { finishReason: "stop", stopReason: "```output" },
        { finishReason: "stop", stopReason: 151645 },
        { finishReason: "length", stopReason: null },
      ]);
    }
  });
});
