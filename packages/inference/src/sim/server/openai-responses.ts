import { chatLogprobsBody, completionLogprobsBody, type SimTokenLogprob } from "./logprobs";
import type { SimDialect } from "./config";
import type { FinishedSample } from "./sample-text";

/** Fields shared by a response and all chunks of its stream. */
export interface ResponseHeader {
  kind: "chat" | "completion";
  id: string;
  created: number;
  model: string;
  dialect: SimDialect;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number } | null;
}

/** `reportCached` false: no `prompt_tokens_details`, as vLLM and SGLang answer without their cache-report flags. */
export function usage(promptTokens: number, completionTokens: number, cachedTokens: number, reportCached = true): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: reportCached ? { cached_tokens: cachedTokens } : null,
  };
}

/** The stop a choice ended on, under the dialect's field name. */
function stopField(dialect: SimDialect, stop: string | null): { stop_reason: string | null } | { matched_stop: string | null } {
  return dialect === "sglang" ? { matched_stop: stop } : { stop_reason: stop };
}

/** `logprobs[i]`: sample i's token log-probabilities when the request asked for them. */
export function completionBody(header: ResponseHeader, samples: readonly FinishedSample[], totals: Usage, logprobs: ReadonlyArray<readonly SimTokenLogprob[] | null> = []) {
  const choices = samples.map((sample, index) => {
    const tokens = logprobs[index] ?? null;
    return header.kind === "chat"
      ? {
          index,
          message: { role: "assistant", content: sample.text },
          logprobs: tokens ? chatLogprobsBody(tokens) : null,
          finish_reason: sample.finishReason,
          ...stopField(header.dialect, sample.stopReason),
        }
      : { index, text: sample.text, logprobs: tokens ? completionLogprobsBody(tokens) : null, finish_reason: sample.finishReason, ...stopField(header.dialect, sample.stopReason) };
  });
  return { ...headerFields(header, header.kind === "chat" ? "chat.completion" : "text_completion"), choices, usage: totals };
}

/**
 * One choice's event in a stream. Chat: the first event of a choice carries the
 * assistant role, later ones only new content; `finished` adds the finish reason.
 */
export function chunkChoice(header: ResponseHeader, index: number, text: string, first: boolean, finished: FinishedSample | null) {
  const kind = header.kind;
  const finish = { finish_reason: finished?.finishReason ?? null, ...stopField(header.dialect, finished?.stopReason ?? null) };
  if (kind === "completion") return { index, text, logprobs: null, ...finish };
  const delta: { role?: "assistant"; content?: string } = {};
  if (first) delta.role = "assistant";
  if (text.length > 0 || (first && !finished)) delta.content = text;
  return { index, delta, logprobs: null, ...finish };
}

/**
 * With `include_usage`, every chunk has a `usage` field (null but on the last,
 * choice-less chunk), as OpenAI documents.
 */
export function chunkBody(header: ResponseHeader, choices: unknown[], includeUsage: boolean, totals: Usage | null = null) {
  return { ...headerFields(header, header.kind === "chat" ? "chat.completion.chunk" : "text_completion"), choices, ...(includeUsage ? { usage: totals } : {}) };
}

/** The fields every response body and stream chunk opens with. */
function headerFields(header: ResponseHeader, object: string) {
  return { id: header.id, object, created: header.created, model: header.model };
}
