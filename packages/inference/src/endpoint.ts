import { z } from "zod";

/** The role an OpenAI-compatible server plays in a run. */
export const ENDPOINT_ROLES = ["policy", "judge", "segmenter"] as const;

export const endpointConfigSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** One base URL per replica, including `/v1`, e.g. http://gpu-node-1:8000/v1 (vLLM) or http://host:30000/v1 (SGLang). */
  baseUrls: z.array(z.url().refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL")).min(1, "needs at least one replica URL"),
  model: z.string().trim().min(1).max(300),
  role: z.enum(ENDPOINT_ROLES),
  /** Requests in flight per replica. */
  maxConcurrency: z.number().int().min(1).max(4096).default(64),
  apiKey: z.string().min(1).optional(),
});
export type EndpointConfig = z.infer<typeof endpointConfigSchema>;

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })) });

export class EndpointError extends Error {
  override readonly name = "EndpointError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * GET {baseUrl}/models: the served model names. Used as the health check of an
 * endpoint; vLLM and SGLang both answer it.
 */
export async function listServedModels(
  endpoint: { baseUrl: string; apiKey?: string },
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<string[]> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}/models`;
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 5_000), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  try {
    response = await fetch(url, {
      headers: endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    throw new EndpointError(`${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) throw new EndpointError(`${url}: HTTP ${response.status}`, response.status);
  const parsed = modelListSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new EndpointError(`${url}: not an OpenAI-compatible model list`);
  return parsed.data.data.map((m) => m.id);
}
