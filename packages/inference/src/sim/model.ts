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

export interface SimModel {
  /** The name served in /v1/models and matched against the request's `model`. */
  readonly id: string;
  /**
   * The full continuation text of one sample, before stop strings and max_tokens
   * are applied by the server. Must be deterministic in (prompt, seed). Throws
   * `SimPromptError` when the prompt is not one this model understands (→ HTTP 400).
   */
  generate(request: SimSampleRequest): string;
}

export class SimPromptError extends Error {
  override readonly name = "SimPromptError";
}
