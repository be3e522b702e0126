import { afterEach, describe, expect, it } from "vitest";
import type { FaultConfig, SimReplica } from "../../src/sim/server";
import { postJson, sseData, startTestReplica, type SimError, type TextChunk, type TextCompletion } from "./helpers";

const started: SimReplica[] = [];
async function faulty(faults: Partial<FaultConfig>): Promise<SimReplica> {
  const replica = await startTestReplica({ faults });
  started.push(replica);
  return replica;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop()));
});

const completion = (replica: SimReplica, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  postJson(`${replica.url}/completions`, { model: "long", prompt: "x", max_tokens: 50, seed: 1, ...extra }, signal);

describe("sim replica: fault injection", () => {
  it("answers 500/503 with an OpenAI error body", async () => {
    const replica = await faulty({ error5xxRate: 1 });
    const statuses = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const response = await completion(replica);
      statuses.add(response.status);
      expect(((await response.json()) as SimError).error).toMatchObject({ message: expect.any(String), type: expect.any(String), code: response.status });
    }
    expect([...statuses].sort()).toEqual([500, 503]);
    expect(replica.metrics().faults.error5xx).toBe(12);
  });

  it("answers 429 with retry-after", async () => {
    const replica = await faulty({ rateLimitRate: 1, retryAfterSeconds: 3 });
    const response = await completion(replica);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(((await response.json()) as SimError).error.code).toBe(429);
  });

  it("hangs until the client gives up, holding no capacity", async () => {
    const replica = await faulty({ hangRate: 1 });
    const error = await completion(replica, {}, AbortSignal.timeout(200)).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("TimeoutError");
    expect(replica.metrics().faults.hang).toBe(1);
    expect(replica.metrics().models.long!.running).toBe(0);
  });

  it("drops non-streaming responses before the headers or mid-body", async () => {
    const replica = await faulty({ dropRate: 1 });
    const failures: string[] = [];
    for (let i = 0; i < 8; i++) {
      try {
        const response = await completion(replica);
        failures.push("headers");
        await response.text();
        failures.push("complete");
      } catch {
        failures.push("failed");
      }
    }
    expect(failures).not.toContain("complete");
    // Both kinds happen: some requests fail before any header, some after them.
    expect(failures.filter((f) => f === "headers").length).toBeGreaterThan(0);
    expect(failures.filter((f) => f === "headers").length).toBeLessThan(8);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(replica.metrics().models.long!.running).toBe(0);
  });

  it("drops a stream mid-stream, after some tokens and before [DONE]", async () => {
    const replica = await faulty({ dropRate: 1 });
    const response = await completion(replica, { stream: true, max_tokens: 100 });
    expect(response.status).toBe(200);
    let text = "";
    const error = await (async () => {
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        text += new TextDecoder().decode(value);
      }
    })().catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(text).toContain("data: {");
    expect(text).not.toContain("[DONE]");
  });

  it("sends a 200 whose body is not JSON, streaming or not", async () => {
    const replica = await faulty({ malformedRate: 1 });
    const response = await completion(replica);
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(() => JSON.parse(body)).toThrow();
    expect(body.startsWith('{"id":"cmpl-')).toBe(true);

    const stream = await completion(replica, { stream: true });
    const events = sseData(await stream.text());
    expect(events.at(-1)).toBe("[DONE]");
    expect(events.slice(0, -1).some((e) => { try { JSON.parse(e); return false; } catch { return true; } })).toBe(true);
  });

  it("replaces the text with garbage in an otherwise valid response", async () => {
    const clean = await startTestReplica({});
    started.push(clean);
    const replica = await faulty({ garbageRate: 1 });
    const expected = (await (await completion(clean)).json()) as TextCompletion;
    const response = await completion(replica);
    expect(response.status).toBe(200);
    const body = (await response.json()) as TextCompletion;
    expect(body.choices[0]!.text).not.toBe(expected.choices[0]!.text);
    expect(body.choices[0]!.text).toMatch(/^[a-z]+( [a-z]+)*$/);
    expect(body.usage).toEqual(expected.usage);
    expect(body.choices[0]!.finish_reason).toBe("length");
  });

  it("answers with empty texts and no completion token, streaming or not", async () => {
    const replica = await faulty({ emptyRate: 1 });
    const response = await completion(replica, { n: 3 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as TextCompletion;
    expect(body.choices.map((c) => c.text)).toEqual(["", "", ""]);
    expect(body.choices.every((c) => c.finish_reason === "stop")).toBe(true);
    expect(body.usage.completion_tokens).toBe(0);

    const stream = await completion(replica, { stream: true });
    const events = sseData(await stream.text());
    expect(events.at(-1)).toBe("[DONE]");
    const streamed = events.slice(0, -1).map((e) => JSON.parse(e) as TextChunk).flatMap((e) => e.choices.map((c) => c.text ?? ""));
    expect(streamed.join("")).toBe("");
    expect(replica.metrics().faults.empty).toBe(2);
  });

  it("cuts a judge's text before its final \\boxed{} verdict, leaving texts without one as they are", async () => {
    const clean = await startTestReplica({});
    started.push(clean);
    const replica = await faulty({ verdictlessRate: 1 });
    const judged = { model: "echo", prompt: "The step is right. Final Judgment: \\boxed{Negative} then \\boxed{Positive}", max_tokens: 200, seed: 3 };
    const expected = (await (await postJson(`${clean.url}/completions`, judged)).json()) as TextCompletion;
    const body = (await (await postJson(`${replica.url}/completions`, judged)).json()) as TextCompletion;
    const text = body.choices[0]!.text;
    expect(expected.choices[0]!.text).toContain("\\boxed{Positive}");
    expect(text).toBe("You said: The step is right. Final Judgment: \\boxed{Negative} then I cannot decide.");
    expect(body.usage).toEqual(expected.usage);

    const plain = (await (await completion(replica)).json()) as TextCompletion;
    const plainClean = (await (await completion(clean)).json()) as TextCompletion;
    expect(plain.choices[0]!.text).toBe(plainClean.choices[0]!.text);
    expect(replica.metrics().faults.verdictless).toBe(2);
  });

  it("counts every kind it injects, each near its rate", async () => {
    const kinds = ["error5xx", "rateLimit", "malformed", "garbage", "empty", "verdictless"] as const;
    const replica = await faulty({ error5xxRate: 0.1, rateLimitRate: 0.1, malformedRate: 0.1, garbageRate: 0.1, emptyRate: 0.1, verdictlessRate: 0.1, retryAfterSeconds: 0, seed: 9 });
    const requests = 300;
    for (let i = 0; i < requests; i++) await (await completion(replica, { max_tokens: 2 })).text();
    const { faults } = replica.metrics();
    for (const kind of kinds) {
      expect(faults[kind]).toBeGreaterThan(requests * 0.1 * 0.5);
      expect(faults[kind]).toBeLessThan(requests * 0.1 * 1.5);
    }
    expect(faults.hang + faults.drop).toBe(0);
  });

  it("spares /health, /v1/models and /metrics", async () => {
    const replica = await faulty({ error5xxRate: 0.5, hangRate: 0.5 });
    for (const path of ["/health", "/v1/models", "/metrics"]) {
      for (let i = 0; i < 5; i++) expect((await fetch(`${replica.origin}${path}`)).status).toBe(200);
    }
    expect(replica.metrics().requests).toBe(0);
  });

  it("draws the same faults for the same seed and request order", async () => {
    const faults = { error5xxRate: 0.2, rateLimitRate: 0.2, malformedRate: 0.2, seed: 42 };
    const outcomes = async (replica: SimReplica) => {
      const seen: string[] = [];
      for (let i = 0; i < 25; i++) {
        const response = await completion(replica, { max_tokens: 2 });
        const text = await response.text();
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        seen.push(`${response.status}${valid ? "" : "!"}`);
      }
      return seen;
    };
    const first = await outcomes(await faulty(faults));
    const second = await outcomes(await faulty(faults));
    const other = await outcomes(await faulty({ ...faults, seed: 43 }));
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(first).size).toBeGreaterThanOrEqual(3);
  });

  it("rejects fault rates summing above 1", async () => {
    await expect(startTestReplica({ faults: { error5xxRate: 0.6, hangRate: 0.6 } })).rejects.toThrow(/faults.*sum to at most 1/);
    await expect(startTestReplica({ faults: { emptyRate: 0.5, verdictlessRate: 0.6 } })).rejects.toThrow(/faults.*sum to at most 1/);
  });
});
