import { z } from "zod";

/** The parts of OpenAI/vLLM responses we rely on; anything else is ignored. */
const usageSchema = z
  .object({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  })
  .nullish();

const finish = { finish_reason: z.string().nullish(), stop_reason: z.union([z.string(), z.number()]).nullish() };

export const chatCompletionSchema = z.object({
  choices: z.array(z.object({ index: z.number(), message: z.object({ content: z.string().nullish() }), ...finish })).min(1),
  usage: usageSchema,
});

export const completionSchema = z.object({
  choices: z.array(z.object({ index: z.number(), text: z.string(), ...finish })).min(1),
  usage: usageSchema,
});

export const chatChunkSchema = z.object({
  choices: z.array(z.object({ index: z.number(), delta: z.object({ content: z.string().nullish() }).partial(), ...finish })),
  usage: usageSchema,
});

export const completionChunkSchema = z.object({
  choices: z.array(z.object({ index: z.number(), text: z.string().nullish(), ...finish })),
  usage: usageSchema,
});

export type UsageShape = z.infer<typeof usageSchema>;
