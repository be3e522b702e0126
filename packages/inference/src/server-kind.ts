/**
 * Which server is behind an endpoint. It matters where servers differ in what
 * they do with the same OpenAI request:
 *
 * - vLLM: a request with `n` samples and a `seed` gives sample i the seed
 *   `seed + i` (vllm/v1/engine/parallel_sampling.py, `ParentRequest.
 *   _get_child_sampling_params`: "Each child gets a clone with a unique seed"),
 *   so the n samples differ and sample i equals a request with n = 1 and seed
 *   `seed + i`.
 * - SGLang: the request's `seed` is every parallel sample's `sampling_seed`
 *   (python/sglang/srt/entrypoints/openai/serving_chat.py and
 *   serving_completions.py), so n samples of one seeded request may be
 *   identical.
 * - Any other OpenAI-compatible server: not known; treated like SGLang.
 *
 * Where the server does not derive per-sample seeds, the client sends K requests
 * with seeds `seed + i` instead of one with n = K: the samples differ, stay
 * reproducible, and are the samples vLLM would have given.
 */
export const SERVER_KINDS = ["vllm", "sglang", "openai-compatible"] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** An endpoint's setting: a kind, or "auto" to ask the server (its model list says who it is). */
export const SERVER_KIND_SETTINGS = ["auto", ...SERVER_KINDS] as const;
export type ServerKindSetting = (typeof SERVER_KIND_SETTINGS)[number];

export const SERVER_KIND_LABELS: Record<ServerKindSetting, string> = {
  auto: "detect",
  vllm: "vLLM",
  sglang: "SGLang",
  "openai-compatible": "other OpenAI-compatible",
};

/** Whether one request with n samples and a seed gives each sample its own seed (seed + i). */
export function derivesSampleSeeds(kind: ServerKind): boolean {
  return kind === "vllm";
}

/**
 * The server kind a `GET /v1/models` answer names: each model card's `owned_by`
 * is "vllm" on vLLM (`ModelCard` of vllm/entrypoints/openai/protocol.py,
 * engine/protocol.py in later releases) and
 * "sglang" on SGLang (python/sglang/srt/entrypoints/openai/protocol.py,
 * `ModelCard`); anything else, or no model card, is "openai-compatible".
 */
export function serverKindOfModelList(body: unknown): ServerKind {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length === 0) return "openai-compatible";
  const owners = new Set(data.map((card) => (card as { owned_by?: unknown } | null)?.owned_by));
  if (owners.size !== 1) return "openai-compatible";
  const [owner] = owners;
  return owner === "vllm" ? "vllm" : owner === "sglang" ? "sglang" : "openai-compatible";
}
