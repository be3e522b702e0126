import type { TokenLogprob } from "@stepwiser/core";
import { UsageMeter, type TokenUsage } from "./accounting";
import { InferenceError, type InferenceFailureKind } from "./errors";
import type { EndpointPool, Lease } from "./endpoint-pool";
import {
  chatChunkSchema,
  chatCompletionSchema,
  completionChunkSchema,
  completionSchema,
  poolingResponseSchema,
  stopOf,
  type ChatLogprobsShape,
  type CompletionLogprobsShape,
  type UsageShape,
} from "./openai-shapes";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, sleep, type RetryPolicy } from "./retry";
import { derivesSampleSeeds, serverKindOfModelList, type ServerKind, type ServerKindSetting } from "../server-kind";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type GenerationPrompt =
  /**
   * Chat completions. With `continueFinalMessage`, the last message is an assistant
   * prefix the model continues (vLLM/SGLang `continue_final_message`), e.g. a
   * solution cut after chunk i for Monte-Carlo rollouts.
   */
  | { kind: "chat"; messages: ChatMessage[]; continueFinalMessage?: boolean }
  /** Raw-text completions, for base models. */
  | { kind: "completion"; prompt: string };

export interface GenerationRequest {
  model: string;
  prompt: GenerationPrompt;
  /**
   * Samples of the prompt; they share its prefill. With a seed, on a server that
   * does not give each sample its own seed (see `ServerKind`), they are sent as n
   * requests with seeds seed + i.
   */
  n?: number;
  /** Sample i is reproducible with seed + i, on every server kind. */
  seed?: number;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** Generation stops before the first of these (e.g. "</chunk>"). */
  stop?: string[];
  /**
   * Requests sharing this key go to the same replica so its prefix cache serves
   * them. Defaults to the prompt itself.
   */
  affinityKey?: string;
  /**
   * Asks for each generated token's log-probability (chat `logprobs: true`;
   * completions `logprobs: topLogprobs ?? 0`). Streams ignore it.
   */
  logprobs?: boolean;
  /** With `logprobs`: how many alternatives per token (OpenAI allows 0–20). */
  topLogprobs?: number;
  /** Server-specific fields sent as they are (e.g. `top_k`, `repetition_penalty`). */
  extraBody?: Record<string, unknown>;
  signal?: AbortSignal;
  meter?: UsageMeter;
}

export interface GeneratedSample {
  index: number;
  text: string;
  /** "stop" (ended or hit a stop string), "length" (max_tokens) or what the server said. */
  finishReason: string;
  /** The stop string that ended it, when the server says so. */
  stopReason: string | number | null;
  /** seed + index when the request had a seed. */
  seed: number | null;
  /** Each generated token with its log-probability and alternatives, when the request asked and the server said. */
  logprobs?: TokenLogprob[];
}

/**
 * vLLM's pooling API (`POST /pooling`, e.g. a process reward model served with
 * `--runner pooling`): one conversation (`messages`, rendered with the model's
 * chat template) or one text (`input`), exactly one of them.
 */
export interface PoolingRequest {
  model: string;
  messages?: ChatMessage[];
  input?: string;
  /** Requests sharing this key go to the same replica; defaults to the input itself. */
  affinityKey?: string;
  signal?: AbortSignal;
  meter?: UsageMeter;
}

export interface PoolingResult {
  /** The first item's `data` as the server sent it (a reward model: one probability pair per step tag); the caller checks its shape. */
  data: unknown;
  /** The whole response body, for readers of vLLM's shape (core's `readStepProbabilities`). */
  body: unknown;
  /** Prompt tokens only: nothing is generated. */
  usage: TokenUsage;
  latencyMs: number;
  attempts: number;
  replica: string;
}

export interface GenerationResult {
  samples: GeneratedSample[];
  usage: TokenUsage;
  latencyMs: number;
  attempts: number;
  replica: string;
}

export type StreamEvent =
  | { type: "delta"; index: number; text: string }
  | { type: "done"; result: GenerationResult };

/** One request as the client finished it, after all its attempts. */
export interface RequestObservation {
  /** "ok", or why it failed for good. */
  outcome: "ok" | InferenceFailureKind;
  /** From the first attempt to the answer or the last failure, waits and backoff included. */
  latencyMs: number;
  attempts: number;
}

export interface InferenceClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Every request is also recorded here (in addition to a per-request meter). */
  meter?: UsageMeter;
  random?: () => number;
  /** Called once per request when it is answered or has failed for good (a fanned-out request: once per part). */
  onRequest?: (observation: RequestObservation) => void;
  /**
   * The server behind the pool. "auto" (the default) asks the first replica's
   * `GET /models` once (its `owned_by`); a failed probe counts as
   * "openai-compatible" and is asked again a minute later.
   */
  serverKind?: ServerKindSetting;
}

/** How long a failed server-kind probe stands before the next request asks again. */
const PROBE_RETRY_MS = 60_000;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * OpenAI-compatible generation over an endpoint pool: bounded retries with
 * backoff for 429/5xx/timeouts/dropped connections, typed errors otherwise,
 * cancellation by AbortSignal, token accounting.
 */
export class InferenceClient {
  private readonly retry: RetryPolicy;
  private readonly random: () => number;
  readonly meter: UsageMeter;
  /** See InferenceClientOptions.onRequest; may be set after construction, by whoever creates the clients. */
  onRequest: ((observation: RequestObservation) => void) | undefined;
  private readonly serverKindSetting: ServerKindSetting;
  private detectedKind: ServerKind | null = null;
  private detecting: Promise<ServerKind> | null = null;
  private probeFailedAt = -Infinity;

  constructor(
    /** The replicas requests are spread over. */
    readonly endpoints: EndpointPool,
    options: InferenceClientOptions = {},
  ) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.meter = options.meter ?? new UsageMeter();
    this.random = options.random ?? Math.random;
    this.onRequest = options.onRequest;
    this.serverKindSetting = options.serverKind ?? "auto";
  }

  /** The server kind requests are shaped for: the setting, or what the server said it is. */
  async serverKind(): Promise<ServerKind> {
    if (this.serverKindSetting !== "auto") return this.serverKindSetting;
    if (this.detectedKind) return this.detectedKind;
    if (performance.now() - this.probeFailedAt < PROBE_RETRY_MS) return "openai-compatible";
    this.detecting ??= this.detectServerKind().finally(() => (this.detecting = null));
    return this.detecting;
  }

  private async detectServerKind(): Promise<ServerKind> {
    try {
      const kind = serverKindOfModelList(await this.endpoints.getJson("/models", PROBE_TIMEOUT_MS));
      this.detectedKind = kind;
      return kind;
    } catch {
      this.probeFailedAt = performance.now();
      return "openai-compatible";
    }
  }

  /** Whether this request goes out as n requests with seeds seed + i (see `GenerationRequest.n`). */
  private async fansOut(request: GenerationRequest): Promise<boolean> {
    if ((request.n ?? 1) <= 1 || request.seed === undefined) return false;
    return !derivesSampleSeeds(await this.serverKind());
  }

  async generate(request: GenerationRequest): Promise<GenerationResult> {
    if (!(await this.fansOut(request))) return this.generateOne(request);
    const controller = linkedController(request.signal);
    try {
      const parts = await Promise.all(
        seededParts(request, controller.signal).map((part) =>
          this.generateOne(part).catch((error: unknown) => {
            controller.abort();
            throw error;
          }),
        ),
      );
      return mergeParts(request, parts);
    } finally {
      controller.dispose();
    }
  }

  /**
   * Streams the text as it is generated, each sample's deltas under its index.
   * Retries happen only before a sample's first delta; after that a failure
   * surfaces, since the caller has already seen text.
   */
  async *stream(request: GenerationRequest): AsyncGenerator<StreamEvent> {
    if (!(await this.fansOut(request))) {
      yield* this.streamOne(request);
      return;
    }
    const controller = linkedController(request.signal);
    const streams = seededParts(request, controller.signal).map((part) => this.streamOne(part));
    const next = (i: number) => streams[i]!.next().then((step) => ({ i, step }));
    const pending = new Map(streams.map((_, i) => [i, next(i)] as const));
    const parts: GenerationResult[] = [];
    try {
      while (pending.size > 0) {
        const { i, step } = await Promise.race(pending.values());
        if (step.done) {
          pending.delete(i);
          continue;
        }
        if (step.value.type === "delta") yield { type: "delta", index: i, text: step.value.text };
        else parts[i] = step.value.result;
        pending.set(i, next(i));
      }
    } finally {
      controller.abort();
      controller.dispose();
      await Promise.allSettled(streams.map((stream) => stream.return(undefined)));
    }
    yield { type: "done", result: mergeParts(request, parts) };
  }

  private generateOne(request: GenerationRequest): Promise<GenerationResult> {
    return this.withRetries({ affinityKey: affinityOf(request), signal: request.signal, meter: request.meter }, async (lease) => {
      const { path, body } = generationRequestBody(request, false);
      const json = await lease.transport.postJson(path, body, request.signal);
      return parseResponse(request, json);
    });
  }

  private async *streamOne(request: GenerationRequest): AsyncGenerator<StreamEvent> {
    const started = performance.now();
    const streamContext: RequestContext = { affinityKey: affinityOf(request), signal: request.signal, meter: request.meter };
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const lease = await this.endpoints.acquire(affinityOf(request), request.signal);
      const texts: string[] = [];
      const finishes: Array<{ finishReason: string; stopReason: string | number | null }> = [];
      let usage: UsageShape = null;
      let delivered = false;
      let outcome: "ok" | "http-error" | "unreachable" | "cancelled" = "ok";
      try {
        const { path, body } = generationRequestBody(request, true);
        let sawDone = false;
        for await (const data of lease.transport.postStream(path, body, request.signal)) {
          if (data === "[DONE]") {
            sawDone = true;
            break;
          }
          const chunk = parseChunk(request, data);
          if (chunk.usage) usage = chunk.usage;
          for (const choice of chunk.choices) {
            if (choice.text) {
              texts[choice.index] = (texts[choice.index] ?? "") + choice.text;
              delivered = true;
              yield { type: "delta", index: choice.index, text: choice.text };
            }
            if (choice.finishReason) finishes[choice.index] = { finishReason: choice.finishReason, stopReason: choice.stopReason };
          }
        }
        if (!sawDone) throw new InferenceError(`${lease.baseUrl}: stream ended without [DONE]`, "connection", true);
        const result = buildResult(request, texts, finishes, usage, performance.now() - started, attempts, lease.baseUrl);
        this.record(streamContext, result);
        yield { type: "done", result };
        return;
      } catch (error) {
        outcome = outcomeOf(error);
        const failure = asInferenceError(error);
        if (delivered || !failure.retryable || attempts >= this.retry.maxAttempts) {
          this.recordFailure(streamContext, attempts, started, failure);
          throw failure;
        }
        await sleep(backoffDelayMs(attempts, this.retry, this.random, failure.retryAfterSeconds), request.signal);
      } finally {
        this.endpoints.release(lease, outcome);
      }
    }
  }

  /**
   * POST /pooling at each endpoint's server root: vLLM serves it beside /v1, not
   * under it, so the URL is the endpoint's base URL with a trailing "/v1" removed
   * plus "/pooling" (`http://gpu1:8000/v1` → `http://gpu1:8000/pooling`). Same
   * retries, typed errors and accounting (prompt tokens) as `generate`.
   */
  pool(request: PoolingRequest): Promise<PoolingResult> {
    if ((request.messages === undefined) === (request.input === undefined)) {
      return Promise.reject(new InferenceError("a pooling request needs exactly one of messages and input", "http", false, 400));
    }
    const affinityKey = request.affinityKey ?? request.input ?? request.messages!.map((m) => `${m.role}\u0000${m.content}`).join("\u0001");
    return this.withRetries({ affinityKey, signal: request.signal, meter: request.meter }, async (lease) => {
      const body = { model: request.model, ...(request.messages !== undefined ? { messages: request.messages } : { input: request.input }) };
      const json = await lease.transport.postJson("/pooling", body, request.signal, { atRoot: true });
      const parsed = poolingResponseSchema.safeParse(json);
      if (!parsed.success) throw new InferenceError(`malformed pooling response: ${parsed.error.issues[0]?.message}`, "malformed", true);
      return {
        data: parsed.data.data[0]!.data,
        body: json,
        usage: { promptTokens: parsed.data.usage?.prompt_tokens ?? 0, completionTokens: 0, cachedPromptTokens: 0 },
      };
    });
  }

  private async withRetries<Result extends { usage: TokenUsage }>(
    request: RequestContext,
    attempt: (lease: Lease) => Promise<Result>,
  ): Promise<Result & { latencyMs: number; attempts: number; replica: string }> {
    const started = performance.now();
    for (let attempts = 1; ; attempts++) {
      let lease: Lease;
      try {
        lease = await this.endpoints.acquire(request.affinityKey, request.signal);
      } catch (error) {
        throw this.recordFailure(request, attempts, started, asInferenceError(error));
      }
      let outcome: "ok" | "http-error" | "unreachable" | "cancelled" = "ok";
      try {
        const partial = await attempt(lease);
        const result = { ...partial, latencyMs: performance.now() - started, attempts, replica: lease.baseUrl };
        this.record(request, result);
        return result;
      } catch (error) {
        outcome = outcomeOf(error);
        const failure = asInferenceError(error);
        if (!failure.retryable || attempts >= this.retry.maxAttempts) {
          this.recordFailure(request, attempts, started, failure);
          throw attempts > 1 && failure.retryable ? new InferenceError(`gave up after ${attempts} attempts: ${failure.message}`, failure.kind, false, failure.status) : failure;
        }
        try {
          await sleep(backoffDelayMs(attempts, this.retry, this.random, failure.retryAfterSeconds), request.signal);
        } catch (cancelled) {
          throw this.recordFailure(request, attempts, started, asInferenceError(cancelled, request.signal));
        }
      } finally {
        this.endpoints.release(lease, outcome);
      }
    }
  }

  private record(request: RequestContext, result: { usage: TokenUsage; latencyMs: number; attempts: number }): void {
    this.meter.recordSuccess(result.usage, result.latencyMs, result.attempts);
    request.meter?.recordSuccess(result.usage, result.latencyMs, result.attempts);
    this.observe({ outcome: "ok", latencyMs: result.latencyMs, attempts: result.attempts });
  }

  /** Records a request that failed for good and returns its error. */
  private recordFailure(request: RequestContext, attempts: number, started: number, failure: InferenceError): InferenceError {
    this.meter.recordFailure(attempts);
    request.meter?.recordFailure(attempts);
    this.observe({ outcome: failure.kind, latencyMs: performance.now() - started, attempts });
    return failure;
  }

  /** An observer's failure never changes a request's outcome. */
  private observe(observation: RequestObservation): void {
    try {
      this.onRequest?.(observation);
    } catch {
      // ignored: metrics are not worth a request
    }
  }
}

/** What retries and accounting need to know of a request. */
interface RequestContext {
  affinityKey: string;
  signal?: AbortSignal;
  meter?: UsageMeter;
}

/** An abort controller that also aborts when `parent` does. */
function linkedController(parent: AbortSignal | undefined): AbortController & { dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener("abort", onAbort, { once: true });
  return Object.assign(controller, { dispose: () => parent?.removeEventListener("abort", onAbort) });
}

/** The n one-sample requests of a fanned-out request: seeds seed + i, one affinity key (one replica's prefix cache). */
function seededParts(request: GenerationRequest, signal: AbortSignal): GenerationRequest[] {
  const affinityKey = affinityOf(request);
  return Array.from({ length: request.n ?? 1 }, (_, i) => ({ ...request, n: 1, seed: request.seed! + i, affinityKey, signal }));
}

/** One result of the parts' samples in order (sample i from seed + i), their tokens summed. */
function mergeParts(request: GenerationRequest, parts: GenerationResult[]): GenerationResult {
  const sum = (pick: (usage: TokenUsage) => number) => parts.reduce((total, part) => total + pick(part.usage), 0);
  return {
    samples: parts.map((part, index) => ({ ...part.samples[0]!, index, seed: request.seed! + index })),
    usage: { promptTokens: sum((u) => u.promptTokens), completionTokens: sum((u) => u.completionTokens), cachedPromptTokens: sum((u) => u.cachedPromptTokens) },
    latencyMs: Math.max(...parts.map((part) => part.latencyMs)),
    attempts: Math.max(...parts.map((part) => part.attempts)),
    replica: [...new Set(parts.map((part) => part.replica))].join(","),
  };
}

function affinityOf(request: GenerationRequest): string {
  if (request.affinityKey !== undefined) return request.affinityKey;
  return request.prompt.kind === "chat" ? request.prompt.messages.map((m) => `${m.role}\u0000${m.content}`).join("\u0001") : request.prompt.prompt;
}

/**
 * The path (relative to the base URL, e.g. "/chat/completions") and JSON body of
 * a request, exactly as sent: also what a batch file (vLLM run-batch) carries, so
 * a request run offline is the request that would have been sent online.
 */
export function generationRequestBody(request: GenerationRequest, stream: boolean): { path: string; body: Record<string, unknown> } {
  const common: Record<string, unknown> = {
    model: request.model,
    n: request.n ?? 1,
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.stop?.length ? { stop: request.stop } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  const wantsLogprobs = request.logprobs === true && !stream;
  if (request.prompt.kind === "completion") {
    const logprobs = wantsLogprobs ? { logprobs: request.topLogprobs ?? 0 } : {};
    return { path: "/completions", body: { ...common, ...logprobs, ...request.extraBody, prompt: request.prompt.prompt } };
  }
  const continuing = request.prompt.continueFinalMessage === true;
  if (continuing && request.prompt.messages.at(-1)?.role !== "assistant") {
    throw new InferenceError("continueFinalMessage needs an assistant message last", "http", false, 400);
  }
  return {
    path: "/chat/completions",
    body: {
      ...common,
      ...(wantsLogprobs ? { logprobs: true, ...(request.topLogprobs !== undefined ? { top_logprobs: request.topLogprobs } : {}) } : {}),
      ...request.extraBody,
      messages: request.prompt.messages,
      ...(continuing ? { continue_final_message: true, add_generation_prompt: false } : {}),
    },
  };
}

function parseResponse(request: GenerationRequest, json: unknown): Omit<GenerationResult, "latencyMs" | "attempts" | "replica"> {
  const n = request.n ?? 1;
  if (request.prompt.kind === "chat") {
    const parsed = chatCompletionSchema.safeParse(json);
    if (!parsed.success) throw new InferenceError(`malformed chat completion: ${parsed.error.issues[0]?.message}`, "malformed", true);
    const texts: string[] = [];
    const finishes: Array<{ finishReason: string; stopReason: string | number | null }> = [];
    const logprobs: Array<TokenLogprob[] | undefined> = [];
    for (const c of parsed.data.choices) {
      texts[c.index] = c.message.content ?? "";
      finishes[c.index] = { finishReason: c.finish_reason ?? "stop", stopReason: stopOf(c) };
      logprobs[c.index] = chatTokenLogprobs(c.logprobs);
    }
    return checkedResult(request, n, texts, finishes, parsed.data.usage, logprobs);
  }
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) throw new InferenceError(`malformed completion: ${parsed.error.issues[0]?.message}`, "malformed", true);
  const texts: string[] = [];
  const finishes: Array<{ finishReason: string; stopReason: string | number | null }> = [];
  const logprobs: Array<TokenLogprob[] | undefined> = [];
  for (const c of parsed.data.choices) {
    texts[c.index] = c.text;
    finishes[c.index] = { finishReason: c.finish_reason ?? "stop", stopReason: stopOf(c) };
    logprobs[c.index] = completionTokenLogprobs(c.logprobs);
  }
  return checkedResult(request, n, texts, finishes, parsed.data.usage, logprobs);
}

function checkedResult(
  request: GenerationRequest,
  n: number,
  texts: string[],
  finishes: Array<{ finishReason: string; stopReason: string | number | null }>,
  usage: UsageShape,
  logprobs: Array<TokenLogprob[] | undefined>,
) {
  for (let i = 0; i < n; i++) {
    if (texts[i] === undefined) throw new InferenceError(`response has no choice ${i} of ${n}`, "malformed", true);
  }
  return { samples: samplesOf(request, texts, finishes, logprobs), usage: usageOf(usage) };
}

function samplesOf(
  request: GenerationRequest,
  texts: string[],
  finishes: Array<{ finishReason: string; stopReason: string | number | null }>,
  logprobs: Array<TokenLogprob[] | undefined> = [],
): GeneratedSample[] {
  return texts.map((text, index) => {
    const tokens = logprobs[index];
    return {
      index,
      text,
      finishReason: finishes[index]?.finishReason ?? "stop",
      stopReason: finishes[index]?.stopReason ?? null,
      seed: request.seed !== undefined ? request.seed + index : null,
      ...(tokens ? { logprobs: tokens } : {}),
    };
  });
}

/** Chat `logprobs.content[]` as core's `TokenLogprob`s; undefined when the server sent none. */
function chatTokenLogprobs(shape: ChatLogprobsShape): TokenLogprob[] | undefined {
  if (!shape?.content) return undefined;
  return shape.content.map((entry) => ({
    token: entry.token,
    logprob: entry.logprob,
    top: (entry.top_logprobs ?? []).map((alternative) => ({ token: alternative.token, logprob: alternative.logprob })),
  }));
}

/**
 * Completions `logprobs` (parallel arrays) as `TokenLogprob`s, each token's
 * alternatives best first. A null log-probability (vLLM's first prompt token
 * with echo) reads as -Infinity.
 */
function completionTokenLogprobs(shape: CompletionLogprobsShape): TokenLogprob[] | undefined {
  if (!shape) return undefined;
  return shape.tokens.map((token, i) => ({
    token,
    logprob: shape.token_logprobs[i] ?? -Infinity,
    top: Object.entries(shape.top_logprobs?.[i] ?? {})
      .map(([alternative, logprob]) => ({ token: alternative, logprob }))
      .sort((a, b) => b.logprob - a.logprob),
  }));
}

function usageOf(usage: UsageShape): TokenUsage {
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    cachedPromptTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

function buildResult(
  request: GenerationRequest,
  texts: string[],
  finishes: Array<{ finishReason: string; stopReason: string | number | null }>,
  usage: UsageShape,
  latencyMs: number,
  attempts: number,
  replica: string,
): GenerationResult {
  const n = request.n ?? 1;
  for (let i = 0; i < n; i++) texts[i] ??= "";
  return { samples: samplesOf(request, texts, finishes), usage: usageOf(usage), latencyMs, attempts, replica };
}

interface ParsedChunk {
  choices: Array<{ index: number; text: string | null; finishReason: string | null; stopReason: string | number | null }>;
  usage: UsageShape;
}

function parseChunk(request: GenerationRequest, data: string): ParsedChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new InferenceError(`malformed stream event: ${data.slice(0, 80)}`, "malformed", true);
  }
  if (request.prompt.kind === "chat") {
    const parsed = chatChunkSchema.safeParse(json);
    if (!parsed.success) throw new InferenceError("malformed chat stream chunk", "malformed", true);
    return {
      usage: parsed.data.usage,
      choices: parsed.data.choices.map((c) => ({ index: c.index, text: c.delta.content ?? null, finishReason: c.finish_reason ?? null, stopReason: stopOf(c) })),
    };
  }
  const parsed = completionChunkSchema.safeParse(json);
  if (!parsed.success) throw new InferenceError("malformed completion stream chunk", "malformed", true);
  return {
    usage: parsed.data.usage,
    choices: parsed.data.choices.map((c) => ({ index: c.index, text: c.text ?? null, finishReason: c.finish_reason ?? null, stopReason: stopOf(c) })),
  };
}

function outcomeOf(error: unknown): "http-error" | "unreachable" | "cancelled" {
  if (error instanceof InferenceError) {
    if (error.kind === "http" || error.kind === "malformed") return "http-error";
    if (error.kind === "cancelled") return "cancelled";
    return "unreachable";
  }
  return "unreachable";
}

function asInferenceError(error: unknown, signal?: AbortSignal): InferenceError {
  if (error instanceof InferenceError) return error;
  if (signal?.aborted || (error as { name?: string })?.name === "AbortError") return new InferenceError("cancelled", "cancelled", false);
  return new InferenceError(error instanceof Error ? error.message : String(error), "connection", true);
}
