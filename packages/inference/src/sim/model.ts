/**
 * The contract between the simulated cluster's HTTP server and the models it
 * serves. The server owns everything vLLM does around a model (batching and
 * capacity, prefix cache, stop strings, max_tokens, usage, streaming, faults);
 * a model only maps a prompt to the full text of one sample.
 */

export interface SimChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type SimPrompt =
  /** /v1/chat/completions. With `continueFinalMessage`, the last message is an assistant prefix to continue. */
  | { kind: "chat"; messages: SimChatMessage[]; continueFinalMessage: boolean }
  /** /v1/completions with a raw prompt (base models). */
  | { kind: "completion"; prompt: string };

export interface SimSampleRequest {
  prompt: SimPrompt;
  /**
   * Seed of this one sample: `seed + i` for sample i of a request with a seed,
   * so a sample is reproducible whatever n it was requested with; random otherwise.
   */
  seed: number;
  temperature: number;
}

/** One alternative a model gives for a token it decides (a log-probability, natural log). */
export interface SimTopLogprob {
  token: string;
  logprob: number;
}

/**
 * A token whose probabilities the model decides itself (a verdict word, a
 * yes/no answer): the token of the sample's text that starts at character
 * `at` and reads `token`, with the alternatives it weighed (the token itself
 * among them). Every other token gets the server's plausible fixed value.
 */
export interface SimTokenDecision {
  at: number;
  token: string;
  top: SimTopLogprob[];
}

/** One sample's full text and the tokens whose probabilities the model decided. */
export interface SimGeneration {
  text: string;
  decisions: SimTokenDecision[];
}

/** The body of a `POST /pooling` request, validated: exactly one of messages and input. */
export type SimPoolingInput = { kind: "chat"; messages: SimChatMessage[] } | { kind: "text"; input: string };

export interface SimModel {
  /** The name served in /v1/models and matched against the request's `model`. */
  readonly id: string;
  /**
   * The API the model serves: "generate" (chat and completions, the default) or
   * "pooling" (`POST /pooling` only, like vLLM's `--runner pooling`).
   */
  readonly api?: "generate" | "pooling";
  /**
   * The full continuation text of one sample, before stop strings and max_tokens
   * are applied by the server. Must be deterministic in (prompt, seed). Throws
   * `SimPromptError` when the prompt is not one this model understands (→ HTTP 400).
   */
  generate(request: SimSampleRequest): string;
  /** Like `generate`, also naming the tokens whose log-probabilities the model decides; optional. */
  generateDetailed?(request: SimSampleRequest): SimGeneration;
  /** A pooling model's output for one input (vLLM's `data[0].data`): deterministic in the input. */
  pool?(input: SimPoolingInput): number[][];
}

export class SimPromptError extends Error {
  override readonly name = "SimPromptError";
}
