import { z } from "zod";

/** The parts of OpenAI/vLLM responses we rely on; anything else is ignored. */
const usageSchema = z
  .object({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  })
  .nullish();

/**
 * Why a choice stopped: vLLM names the stop string or token in `stop_reason`, SGLang in
 * `matched_stop` (`CompletionResponseChoice` and the chat choices of
 * python/sglang/srt/entrypoints/openai/protocol.py: `Union[None, int, str]`).
 */
const finish = {
  finish_reason: z.string().nullish(),
  stop_reason: z.union([z.string(), z.number()]).nullish(),
  matched_stop: z.union([z.string(), z.number()]).nullish(),
};

/** The stop string (or token id) a choice stopped on, in either server's field; null when it stopped otherwise. */
export function stopOf(choice: { stop_reason?: string | number | null; matched_stop?: string | number | null }): string | number | null {
  return choice.stop_reason ?? choice.matched_stop ?? null;
}

/** Chat `choices[].logprobs`: one entry per generated token. */
const chatLogprobsSchema = z
  .object({
    content: z
      .array(z.object({ token: z.string(), logprob: z.number(), top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).nullish() }))
      .nullish(),
  })
  .nullish();

/** Completions `choices[].logprobs`: parallel arrays, the alternatives as {token: logprob} dictionaries. */
const completionLogprobsSchema = z
  .object({
    tokens: z.array(z.string()),
    token_logprobs: z.array(z.number().nullable()),
    top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).nullish(),
  })
  .nullish();

export const chatCompletionSchema = z.object({
  choices: z.array(z.object({ index: z.number(), message: z.object({ content: z.string().nullish() }), logprobs: chatLogprobsSchema, ...finish })).min(1),
  usage: usageSchema,
});

export const completionSchema = z.object({
  choices: z.array(z.object({ index: z.number(), text: z.string(), logprobs: completionLogprobsSchema, ...finish })).min(1),
  usage: usageSchema,
});

/** vLLM's `POST /pooling` answer: the first item's `data` is the model's output (e.g. one probability pair per step tag). */
export const poolingResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().optional(), data: z.unknown() })).min(1),
  usage: z.object({ prompt_tokens: z.number(), total_tokens: z.number().optional() }).nullish(),
});

export type ChatLogprobsShape = z.infer<typeof chatLogprobsSchema>;
export type CompletionLogprobsShape = z.infer<typeof completionLogprobsSchema>;

export const chatChunkSchema = z.object({
  choices: z.array(z.object({ index: z.number(), delta: z.object({ content: z.string().nullish() }).partial(), ...finish })),
  usage: usageSchema,
});

export const completionChunkSchema = z.object({
  choices: z.array(z.object({ index: z.number(), text: z.string().nullish(), ...finish })),
  usage: usageSchema,
});

export type UsageShape = z.infer<typeof usageSchema>;
