import { SimPromptError, type SimModel, type SimSampleRequest } from "../../src/sim/model";
import { startSimReplica, type SimReplica, type SimReplicaOptions } from "../../src/sim/server";
import type { Usage } from "../../src/sim/server/openai-responses";

function lastText(request: SimSampleRequest): string {
  const { prompt } = request;
  return prompt.kind === "chat" ? (prompt.messages[prompt.messages.length - 1]?.content ?? "") : prompt.prompt;
}

/** Repeats the last message (or the prompt) and the seed, so samples differ by seed only. */
export const echoModel: SimModel = {
  id: "echo",
  generate: (request) => {
    if (lastText(request).includes("unanswerable")) throw new SimPromptError("this prompt is not one the echo model understands");
    return `You said: ${lastText(request)} (seed ${request.seed}, temperature ${request.temperature})`;
  },
};

/** The i-th word of a long text; letters only, so one word is one token. */
export function word(i: number): string {
  return `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}`;
}

/** The first `count` words of a long model's text. */
export function words(count: number): string {
  return Array.from({ length: count }, (_, i) => word(i)).join(" ");
}

/** `count` one-token words, then "</chunk>" and a tail, so stop strings and max_tokens have something to cut. */
export function longModel(id: string, count: number): SimModel {
  const body = words(count);
  return { id, generate: (request) => `${body} </chunk> tail after the stop ${request.seed}` };
}

export const TEST_MODELS: SimModel[] = [echoModel, longModel("long", 200)];

/** Fast simulated time: 40 tok/s per sequence × 50 = one token every 0.5 ms. */
export function startTestReplica(options: Partial<SimReplicaOptions> = {}): Promise<SimReplica> {
  return startSimReplica({
    models: TEST_MODELS,
    timeScale: 50,
    ...options,
    capacity: { tickMs: 5, ...options.capacity },
  });
}

export async function postJson(url: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
}

/** The `data:` payloads of a server-sent event stream, [DONE] included. */
export function sseData(text: string): string[] {
  return text
    .split("\n\n")
    .filter((event) => event.length > 0)
    .map((event) => {
      if (!event.startsWith("data: ")) throw new Error(`not an SSE data event: ${event}`);
      return event.slice(6);
    });
}

/** Prometheus samples as "name{labels}" → value. */
export function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

export async function scrape(replica: SimReplica): Promise<Map<string, number>> {
  const response = await fetch(`${replica.origin}/metrics`);
  return parsePrometheus(await response.text());
}

export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The OpenAI-shaped bodies a replica answers (built in `src/sim/server/openai-responses.ts`), as the tests read them. */
interface SimChoiceEnd {
  index: number;
  finish_reason: string | null;
  stop_reason: string | number | null;
}

/** A body of `/v1/completions` (`C` = `TextChoice`) or `/v1/chat/completions` (`C` = `ChatChoice`), or one streamed chunk of either. */
export interface SimBody<C> {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: C[];
  usage: Usage;
}
export type TextChoice = SimChoiceEnd & { text: string };
export type ChatChoice = SimChoiceEnd & { message: { role: string; content: string } };
export type ChatChunkChoice = SimChoiceEnd & { delta: { role?: string; content?: string } };

export type TextCompletion = SimBody<TextChoice>;
export type ChatCompletion = SimBody<ChatChoice>;
export type TextChunk = SimBody<TextChoice>;
export type ChatChunk = Omit<SimBody<ChatChunkChoice>, "usage"> & { usage: Usage | null };

/** An error answer, in OpenAI's (and vLLM's) shape. */
export interface SimError {
  error: { message: string; type: string; param: string | null; code: number };
}
