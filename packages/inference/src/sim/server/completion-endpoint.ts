import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { SimPromptError, type SimChatMessage, type SimModel, type SimPrompt, type SimTokenDecision } from "../model";
import { simTokenCount, simTokenize } from "../tokens";
import type { CapacityScheduler, SequenceHandle } from "./capacity";
import { renderChatPrompt } from "./chat-template";
import { describeIssues, type CapacityConfig, type SimDialect } from "./config";
import { withoutFinalBoxed, type FaultInjector } from "./faults";
import type { SimFaultKind } from "./metrics";
import { sampleLogprobs, type SimTokenLogprob } from "./logprobs";
import { chunkBody, chunkChoice, completionBody, usage, type ResponseHeader } from "./openai-responses";
import { chatRequestSchema, completionRequestSchema, errorBody, messageText, type OpenAiErrorType } from "./openai-schemas";
import { promptBlockHashes } from "./prefix-cache";
import { finishSample, replaceSampleText, visibleChars, type FinishedSample } from "./sample-text";
import { SSE_DONE, SSE_HEADERS, sseEvent } from "./sse";

export interface ReplicaContext {
  models: ReadonlyMap<string, SimModel>;
  scheduler: CapacityScheduler;
  faults: FaultInjector;
  capacity: CapacityConfig;
  dialect: SimDialect;
  reportCachedTokens: boolean;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, type: OpenAiErrorType, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, errorBody(status, type, message), headers);
}

export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly type: OpenAiErrorType,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new RequestError(400, "BadRequestError", message);

/** A validated request, reduced to what the simulation needs. */
interface PreparedRequest {
  model: SimModel;
  prompt: SimPrompt;
  promptTokens: string[];
  n: number;
  seed: number | null;
  temperature: number;
  maxTokens: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
  /** Alternatives per token when log-probabilities were asked for, else null. */
  logprobs: number | null;
}

/** A sample's text before the server's post-processing, what the model decided about its tokens, and its seed. */
interface ModelSample {
  text: string;
  decisions: readonly SimTokenDecision[];
  seed: number;
}

function prepare(ctx: ReplicaContext, kind: ResponseHeader["kind"], json: unknown): PreparedRequest {
  const parsed = (kind === "chat" ? chatRequestSchema : completionRequestSchema).safeParse(json);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error));
  const body = parsed.data;
  const model = ctx.models.get(body.model);
  if (!model) throw new RequestError(404, "NotFoundError", `The model \`${body.model}\` does not exist.`);
  if (model.api === "pooling") {
    throw badRequest(`The model \`${model.id}\` is a pooling model: it serves POST /pooling, not /v1/${kind === "chat" ? "chat/completions" : "completions"}.`);
  }
  if (body.stream_options != null && body.stream !== true) {
    throw badRequest("Stream options can only be defined when `stream=True`.");
  }

  let prompt: SimPrompt;
  let promptText: string;
  let maxTokens = body.max_tokens ?? null;
  let logprobs: number | null;
  if ("messages" in body) {
    if (body.top_logprobs != null && body.logprobs !== true) throw badRequest("when using `top_logprobs`, `logprobs` must be set to true.");
    logprobs = body.logprobs === true ? (body.top_logprobs ?? 0) : null;
    const continueFinalMessage = body.continue_final_message === true;
    // Like vLLM: only an explicit add_generation_prompt=true conflicts (its default is true).
    if (continueFinalMessage && body.add_generation_prompt === true) {
      throw badRequest("Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
    }
    const messages: SimChatMessage[] = body.messages.map((m) => ({ role: m.role, content: messageText(m.content) }));
    if (continueFinalMessage && messages[messages.length - 1]!.role !== "assistant") {
      throw badRequest("continue_final_message is set but the final message is not an assistant message.");
    }
    prompt = { kind: "chat", messages, continueFinalMessage };
    promptText = renderChatPrompt(messages, { addGenerationPrompt: body.add_generation_prompt ?? true, continueFinalMessage });
    maxTokens = body.max_completion_tokens ?? maxTokens;
  } else {
    logprobs = body.logprobs ?? null;
    prompt = { kind: "completion", prompt: body.prompt };
    promptText = body.prompt;
  }

  const promptTokens = simTokenize(promptText);
  const contextLength = ctx.capacity.maxModelLen;
  if (promptTokens.length >= contextLength) {
    throw badRequest(
      `This model's maximum context length is ${contextLength} tokens. However, your prompt has ${promptTokens.length} tokens. Please reduce the length of the prompt.`,
    );
  }
  if (maxTokens !== null && promptTokens.length + maxTokens > contextLength) {
    throw badRequest(
      `This model's maximum context length is ${contextLength} tokens. However, you requested ${promptTokens.length + maxTokens} tokens ` +
        `(${promptTokens.length} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
    );
  }
  const stop = body.stop == null ? [] : typeof body.stop === "string" ? [body.stop] : body.stop;
  return {
    model,
    prompt,
    promptTokens,
    n: body.n ?? 1,
    seed: body.seed ?? null,
    temperature: body.temperature ?? 1,
    maxTokens: maxTokens ?? contextLength - promptTokens.length,
    stop,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    logprobs,
  };
}

function generateSamples(request: PreparedRequest, dialect: SimDialect): ModelSample[] {
  const samples: ModelSample[] = [];
  for (let i = 0; i < request.n; i++) {
    // vLLM gives parallel sample i the seed seed + i; SGLang gives every parallel sample the request's seed.
    const seed = request.seed === null ? Math.floor(Math.random() * 2 ** 31) : dialect === "sglang" ? request.seed : request.seed + i;
    const sampleRequest = { prompt: request.prompt, seed, temperature: request.temperature };
    if (request.model.generateDetailed) {
      samples.push({ ...request.model.generateDetailed(sampleRequest), seed });
    } else {
      samples.push({ text: request.model.generate(sampleRequest), decisions: [], seed });
    }
  }
  return samples;
}

/**
 * POST /v1/chat/completions and /v1/completions: validation, the model's texts,
 * the replica's capacity (each choice is one sequence), then a JSON response or
 * a token-paced stream; a client that goes away frees its sequences at once.
 */
export function handleCompletionRequest(ctx: ReplicaContext, kind: ResponseHeader["kind"], rawBody: string, res: ServerResponse): void {
  let request: PreparedRequest;
  let samples: FinishedSample[];
  let modelSamples: ModelSample[];
  let fault: SimFaultKind | null;
  try {
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      throw badRequest("The request body is not valid JSON.");
    }
    request = prepare(ctx, kind, json);
    fault = ctx.faults.draw();
    if (fault === "error5xx") {
      const status = ctx.faults.random() < 0.5 ? 500 : 503;
      sendError(res, status, status === 500 ? "InternalServerError" : "ServiceUnavailableError", "Simulated server error (injected fault).");
      return;
    }
    if (fault === "rateLimit") {
      const seconds = String(ctx.faults.config.retryAfterSeconds);
      sendError(res, 429, "RateLimitError", "Simulated rate limit (injected fault).", { "retry-after": seconds });
      return;
    }
    // Never answered; the connection stays open until the client gives up (or the server stops).
    if (fault === "hang") return;
    try {
      modelSamples = generateSamples(request, ctx.dialect);
      samples = modelSamples.map((sample) => finishSample(sample.text, request.maxTokens, request.stop));
    } catch (error) {
      if (error instanceof SimPromptError) throw badRequest(error.message);
      throw error;
    }
  } catch (error) {
    if (error instanceof RequestError) return sendError(res, error.status, error.type, error.message);
    process.stderr.write(`sim-server: ${kind} request failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    return sendError(res, 500, "InternalServerError", error instanceof Error ? error.message : String(error));
  }

  if (fault === "garbage") samples = samples.map((s) => replaceSampleText(s, ctx.faults.garbage(simTokenCount(s.text))));
  if (fault === "empty") samples = samples.map(emptySample);
  if (fault === "verdictless") samples = samples.map((s) => replaceSampleText(s, withoutFinalBoxed(s.text)));
  const header: ResponseHeader = {
    kind,
    id: `${kind === "chat" ? "chatcmpl" : "cmpl"}-${randomUUID().replaceAll("-", "")}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model.id,
    dialect: ctx.dialect,
  };
  // Streams carry no log-probabilities (the client reads them from JSON answers only).
  const logprobs =
    request.logprobs === null || request.stream ? [] : samples.map((sample, i) => sampleLogprobs(sample.text, modelSamples[i]!.decisions, request.logprobs!, modelSamples[i]!.seed));
  const init: RunInit = { ctx, header, request, samples, logprobs, fault, res };
  (request.stream ? new StreamingRun(init) : new JsonRun(init)).start();
}

interface RunInit {
  ctx: ReplicaContext;
  header: ResponseHeader;
  request: PreparedRequest;
  samples: readonly FinishedSample[];
  logprobs: ReadonlyArray<readonly SimTokenLogprob[]>;
  fault: SimFaultKind | null;
  res: ServerResponse;
}

/** What streaming and non-streaming responses share: the sequences and their cancellation. */
abstract class Run {
  protected readonly ctx: ReplicaContext;
  protected readonly header: ResponseHeader;
  protected readonly request: PreparedRequest;
  protected readonly samples: readonly FinishedSample[];
  protected readonly logprobs: ReadonlyArray<readonly SimTokenLogprob[]>;
  protected readonly fault: SimFaultKind | null;
  protected readonly res: ServerResponse;
  protected readonly totalCompletionTokens: number;
  protected readonly handles: SequenceHandle[] = [];
  protected cachedTokens = 0;
  protected finishedCount = 0;

  constructor(init: RunInit) {
    ({ ctx: this.ctx, header: this.header, request: this.request, samples: this.samples, logprobs: this.logprobs, fault: this.fault, res: this.res } = init);
    this.totalCompletionTokens = this.samples.reduce((sum, s) => sum + s.completionTokens, 0);
  }

  start(): void {
    // Like vLLM aborting a request whose client disconnected: the slots are freed at once.
    this.res.on("close", () => {
      for (const handle of this.handles) handle.cancel();
    });
    this.beforeSubmit();
    const blockHashes = promptBlockHashes(this.request.model.id, this.request.promptTokens);
    this.samples.forEach((sample, index) => {
      if (this.res.destroyed) return;
      this.handles.push(
        this.ctx.scheduler.submit({
          modelId: this.request.model.id,
          promptTokenCount: this.request.promptTokens.length,
          blockHashes,
          completionTokens: sample.completionTokens,
          // The prompt is counted once per request (as usage.prompt_tokens is), so its cache hit is the first sequence's.
          onAdmitted: index === 0 ? (cached) => (this.cachedTokens = cached) : undefined,
          onTokens: this.request.stream ? (decoded) => this.onTokens(index, decoded) : undefined,
          onFinished: () => {
            this.finishedCount++;
            this.onFinished(index);
          },
        }),
      );
    });
  }

  protected usage() {
    return usage(this.request.promptTokens.length, this.totalCompletionTokens, this.cachedTokens, this.ctx.reportCachedTokens);
  }

  protected beforeSubmit(): void {}
  protected onTokens(_index: number, _decoded: number): void {}
  protected abstract onFinished(index: number): void;
}

class JsonRun extends Run {
  /** Drawn on arrival, so the fault stream's order does not depend on timing. */
  private readonly dropBeforeHeaders: boolean;

  constructor(init: RunInit) {
    super(init);
    this.dropBeforeHeaders = this.fault === "drop" && this.ctx.faults.random() < 0.5;
  }

  protected onFinished(): void {
    if (this.finishedCount < this.samples.length || this.res.destroyed) return;
    const text = JSON.stringify(completionBody(this.header, this.samples, this.usage(), this.logprobs));
    if (this.fault === "malformed") {
      const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
      this.res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(cut) });
      this.res.end(cut);
    } else if (this.fault === "drop") {
      if (this.dropBeforeHeaders) {
        this.res.destroy();
      } else {
        // Promise the whole body, deliver half, then reset: the client sees a truncated response.
        this.res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        this.res.write(text.slice(0, Math.floor(text.length / 2)), () => this.res.destroy());
      }
    } else {
      sendJsonText(this.res, text);
    }
  }
}

class StreamingRun extends Run {
  private readonly sentChars: number[];
  private readonly started: boolean[];
  private decodedTotal = 0;
  private readonly decodedByChoice: number[];
  /** Drop fault: the connection is reset once this many tokens are out (always before the end). */
  private dropAfterTokens = Infinity;
  private corruptNextFinish: boolean;
  private dropping = false;

  constructor(init: RunInit) {
    super(init);
    this.sentChars = this.samples.map(() => 0);
    this.started = this.samples.map(() => false);
    this.decodedByChoice = this.samples.map(() => 0);
    this.corruptNextFinish = this.fault === "malformed";
    if (this.fault === "drop") {
      this.dropAfterTokens = Math.floor((0.2 + 0.6 * this.ctx.faults.random()) * this.totalCompletionTokens);
    }
  }

  protected override beforeSubmit(): void {
    this.res.writeHead(200, SSE_HEADERS);
    this.res.flushHeaders();
  }

  protected override onTokens(index: number, decoded: number): void {
    if (this.dropping || this.res.destroyed) return;
    this.decodedTotal += decoded - this.decodedByChoice[index]!;
    this.decodedByChoice[index] = decoded;
    const sample = this.samples[index]!;
    const end = visibleChars(sample, decoded);
    const sent = this.sentChars[index]!;
    if (end > sent) this.write(index, sample.text.slice(sent, end), null);
    if (this.decodedTotal >= this.dropAfterTokens && this.decodedTotal < this.totalCompletionTokens) this.drop();
  }

  protected override onFinished(index: number): void {
    if (this.dropping || this.res.destroyed) return;
    if (this.decodedTotal >= this.dropAfterTokens) {
      this.drop();
      return;
    }
    const sample = this.samples[index]!;
    this.write(index, sample.text.slice(this.sentChars[index]!), sample);
    if (this.finishedCount < this.samples.length) return;
    if (this.request.includeUsage) this.res.write(sseEvent(chunkBody(this.header, [], true, this.usage())));
    this.res.end(SSE_DONE);
  }

  /**
   * Resets the connection once what was written is on the wire (Node corks a
   * response's writes until the next tick; destroying now would discard them and
   * the client would see no token at all).
   */
  private drop(): void {
    this.dropping = true;
    setImmediate(() => this.res.destroy());
  }

  private write(index: number, text: string, finished: FinishedSample | null): void {
    const choice = chunkChoice(this.header, index, text, !this.started[index], finished);
    this.started[index] = true;
    this.sentChars[index] = this.sentChars[index]! + text.length;
    const event = sseEvent(chunkBody(this.header, [choice], this.request.includeUsage));
    if (finished && this.corruptNextFinish) {
      this.corruptNextFinish = false;
      this.res.write(`${event.slice(0, Math.floor(event.length / 2))}\n\n`);
      return;
    }
    this.res.write(event);
  }
}

/** What a server sends when the model emits end-of-sequence at once. */
function emptySample(sample: FinishedSample): FinishedSample {
  return { ...sample, text: "", finishReason: "stop", stopReason: null, completionTokens: 0, tokenEnds: [] };
}

function sendJsonText(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
