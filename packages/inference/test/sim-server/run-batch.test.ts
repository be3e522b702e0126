import { describe, expect, it } from "vitest";
import { runBatch, type BatchOutputLine } from "../../src/sim/run-batch";
import { startTestReplica } from "./helpers";

async function* linesOf(values: unknown[]) {
  for (const value of values) yield JSON.stringify(value);
}

async function collect(lines: AsyncIterable<BatchOutputLine>) {
  const out: BatchOutputLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

const chat = (customId: string, content: string, extra: Record<string, unknown> = {}) => ({
  custom_id: customId,
  method: "POST",
  url: "/v1/chat/completions",
  body: { model: "echo", messages: [{ role: "user", content }], n: 2, seed: 10, ...extra },
});

describe("simulated vllm run-batch", () => {
  it("answers every line in input order in vLLM's output format, failures included", async () => {
    const replica = await startTestReplica();
    try {
      const input = [
        ...Array.from({ length: 12 }, (_, i) => chat(`ok-${i}`, `question ${i}`)),
        chat("unknown-model", "hello", { model: "gpt-9" }),
        chat("streamed", "hello", { stream: true }),
        { ...chat("embeddings", "hello"), url: "/v1/embeddings" },
      ];
      const output = await collect(runBatch({ input: linesOf(input), baseUrl: replica.url, concurrency: 4 }));
      expect(output.map((l) => l.custom_id)).toEqual(input.map((l) => l.custom_id));
      const first = output[0]!;
      expect(first).toMatchObject({ id: expect.stringMatching(/^vllm-/), error: null, response: { status_code: 200, request_id: expect.stringMatching(/^vllm-batch-/) } });
      const body = first.response!.body as { object: string; choices: Array<{ message: { content: string } }>; usage: { prompt_tokens: number } };
      expect(body.object).toBe("chat.completion");
      expect(body.choices.map((c) => c.message.content)).toEqual(["You said: question 0 (seed 10, temperature 1)", "You said: question 0 (seed 11, temperature 1)"]);
      expect(body.usage.prompt_tokens).toBeGreaterThan(0);
      for (const failed of output.slice(12)) {
        expect(failed.response).toMatchObject({ status_code: expect.any(Number), body: null });
        expect(failed.response!.status_code).not.toBe(200);
        expect(failed.error).not.toBeNull();
      }
      expect(replica.metrics().requests).toBe(13); // the streamed and embeddings lines never reach the server
    } finally {
      await replica.stop();
    }
  });

  it("refuses an input line that is not a batch request, naming its line", async () => {
    const replica = await startTestReplica();
    try {
      const input = (async function* () {
        yield JSON.stringify(chat("a", "hello"));
        yield '{"custom_id": 3}';
      })();
      await expect(collect(runBatch({ input, file: "in.jsonl", baseUrl: replica.url }))).rejects.toThrow('in.jsonl:2, field "custom_id": must be a string');
    } finally {
      await replica.stop();
    }
  });
});
