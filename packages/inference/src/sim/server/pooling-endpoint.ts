import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { SimPromptError, type SimPoolingInput } from "../model";
import { simTokenize } from "../tokens";
import { renderChatPrompt } from "./chat-template";
import { badRequest, RequestError, sendError, sendJson, type ReplicaContext } from "./completion-endpoint";
import { describeIssues } from "./config";
import { messageText, poolingRequestSchema } from "./openai-schemas";
import { promptBlockHashes } from "./prefix-cache";

/**
 * POST /pooling (vLLM serves it at the server root, not under /v1): a pooling
 * model's output for one conversation (`messages`, rendered with the chat
 * template) or one text (`input`). The prompt is prefilled on the replica like
 * any request (one sequence, nothing decoded), faults included: a server error,
 * a rate limit, a hang, a dropped connection or a cut body.
 */
export function handlePoolingRequest(ctx: ReplicaContext, rawBody: string, res: ServerResponse): void {
  let modelId: string;
  let output: number[][];
  let promptTokens: string[];
  try {
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      throw badRequest("The request body is not valid JSON.");
    }
    const parsed = poolingRequestSchema.safeParse(json);
    if (!parsed.success) throw badRequest(describeIssues(parsed.error));
    const body = parsed.data;
    const model = ctx.models.get(body.model);
    if (!model) throw new RequestError(404, "NotFoundError", `The model \`${body.model}\` does not exist.`);
    if (model.api !== "pooling" || !model.pool) {
      throw badRequest(`The model \`${model.id}\` is a generation model: it serves /v1/chat/completions and /v1/completions, not POST /pooling.`);
    }
    const input: SimPoolingInput =
      body.messages !== undefined
        ? { kind: "chat", messages: body.messages.map((m) => ({ role: m.role, content: messageText(m.content) })) }
        : { kind: "text", input: body.input! };
    const promptText = input.kind === "chat" ? renderChatPrompt(input.messages, { addGenerationPrompt: false, continueFinalMessage: false }) : input.input;
    promptTokens = simTokenize(promptText);
    if (promptTokens.length > ctx.capacity.maxModelLen) {
      throw badRequest(`This model's maximum context length is ${ctx.capacity.maxModelLen} tokens. However, your request has ${promptTokens.length} input tokens.`);
    }
    try {
      output = model.pool(input);
    } catch (error) {
      if (error instanceof SimPromptError) throw badRequest(error.message);
      throw error;
    }
    modelId = model.id;
  } catch (error) {
    if (error instanceof RequestError) return sendError(res, error.status, error.type, error.message);
    process.stderr.write(`sim-server: pooling request failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    return sendError(res, 500, "InternalServerError", error instanceof Error ? error.message : String(error));
  }

  const fault = ctx.faults.draw();
  if (fault === "error5xx") {
    const status = ctx.faults.random() < 0.5 ? 500 : 503;
    return sendError(res, status, status === 500 ? "InternalServerError" : "ServiceUnavailableError", "Simulated server error (injected fault).");
  }
  if (fault === "rateLimit") {
    return sendError(res, 429, "RateLimitError", "Simulated rate limit (injected fault).", { "retry-after": String(ctx.faults.config.retryAfterSeconds) });
  }
  if (fault === "hang") return;

  const handle = ctx.scheduler.submit({
    modelId,
    promptTokenCount: promptTokens.length,
    blockHashes: promptBlockHashes(modelId, promptTokens),
    completionTokens: 0,
    onFinished: () => {
      if (res.destroyed) return;
      const body = {
        id: `pool-${randomUUID().replaceAll("-", "")}`,
        object: "list",
        created: Math.floor(Date.now() / 1000),
        model: modelId,
        data: [{ index: 0, object: "pooling", data: output }],
        usage: { prompt_tokens: promptTokens.length, total_tokens: promptTokens.length, completion_tokens: 0, prompt_tokens_details: null },
      };
      const text = JSON.stringify(body);
      if (fault === "malformed" || fault === "drop") {
        const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(fault === "drop" ? text : cut) });
        if (fault === "drop") res.write(cut, () => res.destroy());
        else res.end(cut);
        return;
      }
      sendJson(res, 200, body);
    },
  });
  res.on("close", () => handle.cancel());
}
