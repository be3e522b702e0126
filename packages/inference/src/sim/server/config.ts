import { z } from "zod";

/**
 * Everything a simulated cluster can be told, as one JSON object (the
 * `--config` file of `stepwiser sim-cluster`); every field has a default.
 */

const rate = z.number().min(0).max(1).default(0);

/** What one replica's GPU can do. Throughput = maxConcurrentSequences × decodeTokensPerSecondPerSequence. */
export const capacityConfigSchema = z.strictObject({
  maxConcurrentSequences: z.number().int().min(1).default(256),
  /** Shared by the replica's sequences, first come first served (vLLM's prefill budget). */
  prefillTokensPerSecond: z.number().positive().default(20_000),
  decodeTokensPerSecondPerSequence: z.number().positive().default(40),
  /** Prompt + completion tokens the running sequences may hold; `kv_cache_usage_perc` is relative to it. */
  kvCacheTokens: z.number().int().min(1).default(1_048_576),
  /** Size of the automatic prefix cache (LRU of 16-token blocks); 0 disables it. */
  prefixCacheTokens: z.number().int().min(0).default(2_000_000),
  /** Prompt + max_tokens limit, like vLLM's `--max-model-len`; the default max_tokens is what is left of it. */
  maxModelLen: z.number().int().min(2).default(32_768),
  /** Scheduler period in real milliseconds: how often sequences finish and streams emit. */
  tickMs: z.number().min(1).max(1000).default(20),
});

export const faultConfigSchema = z
  .strictObject({
    /** 500 or 503 with an OpenAI error body. */
    error5xxRate: rate,
    /** 429 with a `retry-after` header. */
    rateLimitRate: rate,
    /** Accepted and never answered, until the client gives up. */
    hangRate: rate,
    /** The connection is destroyed mid-response (or before the headers). */
    dropRate: rate,
    /** 200 with a body that is not valid JSON. */
    malformedRate: rate,
    /** A valid response whose texts are random garbage. */
    garbageRate: rate,
    /** A valid response whose texts are empty (finish_reason "stop", no completion token). */
    emptyRate: rate,
    /**
     * A valid response whose texts lose everything from their last `\boxed{` on, and say so
     * in words instead: a judge's rationale with no readable verdict (a policy's solution
     * loses its final answer).
     */
    verdictlessRate: rate,
    /** Replica i draws its faults from seed + i, so a run is reproducible for the same request order. */
    seed: z.number().int().default(1),
    retryAfterSeconds: z.number().int().min(0).default(1),
  })
  .refine(
    (f) => f.error5xxRate + f.rateLimitRate + f.hangRate + f.dropRate + f.malformedRate + f.garbageRate + f.emptyRate + f.verdictlessRate <= 1 + 1e-9,
    { message: "fault rates must sum to at most 1 (one fault at most per request)" },
  );

/**
 * Which server the replica answers like, where vLLM and SGLang differ:
 * - "vllm": a choice names its stop string in `stop_reason`; sample i of a
 *   seeded request with n samples has seed + i; model cards are owned by "vllm".
 * - "sglang": `matched_stop` instead of `stop_reason`; every sample of a seeded
 *   request has the request's seed (so n samples of one prompt are identical);
 *   model cards are owned by "sglang".
 */
export const SIM_DIALECTS = ["vllm", "sglang"] as const;
export type SimDialect = (typeof SIM_DIALECTS)[number];

const replicaFields = {
  host: z.string().min(1).default("127.0.0.1"),
  dialect: z.enum(SIM_DIALECTS).default("vllm"),
  /**
   * Reports cached prompt tokens in `usage.prompt_tokens_details`, as vLLM does
   * with --enable-prompt-tokens-details and SGLang with --enable-cache-report;
   * false: `prompt_tokens_details` is null, as both servers send without them.
   */
  reportCachedTokens: z.boolean().default(true),
  /** Simulated seconds per real second: 10 makes every duration ten times shorter. */
  timeScale: z.number().positive().default(1),
  capacity: capacityConfigSchema.prefault({}),
  faults: faultConfigSchema.prefault({}),
  /** Like vLLM's --api-key: every /v1 request must carry it as a bearer token. */
  apiKey: z.string().min(1).optional(),
};

export const replicaConfigSchema = z.strictObject({
  ...replicaFields,
  /** 0 picks a free port. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** Position in its cluster; offsets the fault seed. */
  replicaIndex: z.number().int().min(0).default(0),
});

export const clusterConfigSchema = z.strictObject({
  ...replicaFields,
  replicas: z.number().int().min(1).max(256).default(1),
  /** Replica i listens on basePort + i; without it each replica gets a free port. */
  basePort: z.number().int().min(1).max(65_535).optional(),
});

export type CapacityConfig = z.output<typeof capacityConfigSchema>;
export type FaultConfig = z.output<typeof faultConfigSchema>;
export type SimReplicaConfig = z.output<typeof replicaConfigSchema>;
export type SimReplicaConfigInput = z.input<typeof replicaConfigSchema>;
export type SimClusterConfig = z.output<typeof clusterConfigSchema>;
export type SimClusterConfigInput = z.input<typeof clusterConfigSchema>;

/** Validates a whole cluster configuration; the message names the offending field. */
export function parseSimClusterConfig(input: unknown): SimClusterConfig {
  const parsed = clusterConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new Error(`invalid sim-cluster config: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export function parseSimReplicaConfig(input: unknown): SimReplicaConfig {
  const parsed = replicaConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new Error(`invalid sim replica config: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** "n: Too small: expected number to be >=1" for the first few issues. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(body)"}: ${issue.message}`)
    .join("; ");
}
