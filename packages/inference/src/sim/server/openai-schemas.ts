import { z } from "zod";

/**
 * The request fields vLLM's OpenAI server honours that the simulation uses;
 * other fields (top_p, top_k, …) are accepted and ignored, as vLLM ignores
 * what a model does not need. `null` means "default", as in the OpenAI API.
 */
const samplingFields = {
  model: z.string({ error: "model is required and must be a string" }).min(1),
  n: z.number().int().min(1).max(1024).nullish(),
  seed: z.number().int().nullish(),
  temperature: z.number().min(0).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z
    .object({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() })
    .nullish(),
};

const textPart = z.object({ type: z.literal("text"), text: z.string() });

const messageSchema = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.union([z.string(), z.array(textPart)]).nullish(),
});

export const chatRequestSchema = z.object({
  ...samplingFields,
  messages: z.array(messageSchema).min(1),
  /** The newer OpenAI name for max_tokens; vLLM accepts both. */
  max_completion_tokens: z.number().int().min(1).nullish(),
  add_generation_prompt: z.boolean().nullish(),
  continue_final_message: z.boolean().nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
});

export const completionRequestSchema = z.object({
  ...samplingFields,
  prompt: z.string({ error: "prompt must be a string" }),
  echo: z.boolean().nullish(),
  /** Completions: the number of alternatives per token (0: the sampled token's log-probability only). */
  logprobs: z.number().int().min(0).max(20).nullish(),
});

/** vLLM's `POST /pooling` (at the server root): a chat conversation or a text, never both. */
export const poolingRequestSchema = z
  .object({
    model: z.string({ error: "model is required and must be a string" }).min(1),
    messages: z.array(messageSchema).min(1).optional(),
    input: z.string({ error: "input must be a string" }).optional(),
  })
  .refine((body) => (body.messages === undefined) !== (body.input === undefined), { message: "give exactly one of `messages` and `input`" });

export type ChatRequest = z.output<typeof chatRequestSchema>;
export type CompletionRequest = z.output<typeof completionRequestSchema>;

export function messageText(content: z.output<typeof messageSchema>["content"]): string {
  if (content == null) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}

export type OpenAiErrorType =
  | "BadRequestError"
  | "NotFoundError"
  | "RateLimitError"
  | "InternalServerError"
  | "ServiceUnavailableError"
  | "PayloadTooLargeError";

/** vLLM's error body: the HTTP status doubles as `code`. */
export function errorBody(status: number, type: OpenAiErrorType, message: string) {
  return { error: { message, type, param: null, code: status } };
}
