import { createRng, type Rng } from "@stepwiser/core";
import { SimPromptError, type SimPrompt, type SimSampleRequest } from "../model";
import { fnv1a32 } from "../world/text";

/**
 * The instruction a model answers: for chat, the last user message; for a raw
 * completion, the whole prompt. `partial` is the assistant text to continue
 * (chat with continueFinalMessage), or null.
 */
export interface PromptParts {
  instruction: string;
  partial: string | null;
  kind: SimPrompt["kind"];
}

export function promptParts(prompt: SimPrompt): PromptParts {
  if (prompt.kind === "completion") return { instruction: prompt.prompt, partial: null, kind: "completion" };
  const messages = prompt.messages;
  let partial: string | null = null;
  let end = messages.length;
  if (prompt.continueFinalMessage) {
    const last = messages[messages.length - 1];
    if (!last || last.role !== "assistant") throw new SimPromptError("continue_final_message needs the last message to be an assistant message");
    partial = last.content;
    end -= 1;
  }
  for (let i = end - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") return { instruction: message.content, partial, kind: "chat" };
  }
  throw new SimPromptError("the conversation has no user message");
}

/** Whole-prompt identity for seeding: every message, roles included. */
function promptKey(prompt: SimPrompt): string {
  if (prompt.kind === "completion") return `completion\u0000${prompt.prompt}`;
  return `chat\u0000${prompt.continueFinalMessage}\u0000${prompt.messages.map((m) => `${m.role}\u0001${m.content}`).join("\u0000")}`;
}

/**
 * The random stream of one sample: a function of the model, the sample's
 * seed and the prompt, so the same request gives the same text and two
 * prompts (or two models) sampled with one seed do not move in lockstep.
 * Null at temperature 0 (greedy decoding).
 */
export function sampleRng(modelId: string, request: SimSampleRequest): Rng | null {
  if (!(request.temperature > 0)) return null;
  return createRng(`${modelId}|${request.seed}|${fnv1a32(promptKey(request.prompt)).toString(16)}`);
}

/**
 * A judge's random stream: the sample's stream when sampling; at temperature 0
 * a stream fixed by the prompt alone. A real judge decoding greedily is not an
 * oracle: it is wrong on a fixed share of prompts, the same ones every time.
 */
export function judgeRng(modelId: string, request: SimSampleRequest): Rng {
  return sampleRng(modelId, request) ?? createRng(`${modelId}|greedy|${fnv1a32(promptKey(request.prompt)).toString(16)}`);
}

/**
 * For models that write a whole answer at once (judges, segmenter): with a
 * partial assistant message, return what follows it, provided the answer
 * begins with it.
 */
export function continueAnswer(answer: string, partial: string | null, modelId: string): string {
  if (partial === null || partial === "") return answer;
  if (answer.startsWith(partial)) return answer.slice(partial.length);
  throw new SimPromptError(`${modelId} cannot continue this partial answer: it is not the beginning of what it would write`);
}
