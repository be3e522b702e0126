import { NotFoundError } from "@stepwiser/core";
import { metricsUrlOf, parsePrometheusTotals, type MetricSamples } from "@stepwiser/inference";
import { replicaKey } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { probe } from "./probe";

const SCRAPE_TIMEOUT_MS = 3_000;

/**
 * vLLM's names (v1 engine), each with the older name and then SGLang's
 * (python/sglang/srt/metrics/collector.py) as fallbacks. SGLang reports its
 * prefix cache as `cached_tokens_total` against the prompt tokens processed.
 * Values are summed over labels, so a server serving several models reports its
 * total load.
 */
const METRICS = {
  running: ["vllm:num_requests_running", "sglang:num_running_reqs"],
  waiting: ["vllm:num_requests_waiting", "sglang:num_queue_reqs"],
  kvCacheUsagePerc: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"],
  promptTokensTotal: ["vllm:prompt_tokens_total", "sglang:prompt_tokens_total"],
  generationTokensTotal: ["vllm:generation_tokens_total", "sglang:generation_tokens_total"],
  prefixCacheQueriesTotal: ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total", "sglang:prompt_tokens_total"],
  prefixCacheHitsTotal: ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total", "sglang:cached_tokens_total"],
} as const satisfies Record<string, readonly string[]>;

export type ReplicaMetricValues = { [K in keyof typeof METRICS]: number | null };

/** The endpoint's concurrency limit on one replica as the workers share it now (EndpointCapacityLease). */
export interface WorkerSlots {
  /** Slots held by all workers together; never above `limit`. */
  held: number;
  limit: number;
  workers: number;
}

export type ReplicaMetrics = { workerSlots: WorkerSlots } & (
  | ({ baseUrl: string; metricsUrl: string; available: true; /** Server clock, ms since the epoch, when the page was read. */ scrapedAt: number } & ReplicaMetricValues)
  | { baseUrl: string; metricsUrl: string; available: false; reason: string }
);

export function readVllmMetrics(samples: MetricSamples): ReplicaMetricValues {
  const pick = (names: readonly string[]) => {
    for (const name of names) {
      const value = samples.get(name);
      if (value !== undefined) return value;
    }
    return null;
  };
  return Object.fromEntries(Object.entries(METRICS).map(([key, names]) => [key, pick(names)])) as ReplicaMetricValues;
}

/** Viewer and up: each replica's Prometheus /metrics page, read on the server within 3 s. */
export async function endpointMetrics({ db, input }: ServiceArgs<{ id: string }>) {
  const endpoint = await db.endpoint.findUnique({ where: { id: input.id }, select: { id: true, name: true, baseUrls: true, apiKey: true, maxConcurrency: true } });
  if (!endpoint) throw new NotFoundError(`endpoint ${input.id} does not exist`);
  const leases = await db.endpointCapacityLease.findMany({
    where: { replicaKey: { in: endpoint.baseUrls.map((baseUrl) => replicaKey(endpoint.name, baseUrl)) } },
    select: { replicaKey: true, slots: true },
  });
  const slotsOf = (baseUrl: string): WorkerSlots => {
    const held = leases.filter((l) => l.replicaKey === replicaKey(endpoint.name, baseUrl));
    return { held: held.reduce((sum, l) => sum + l.slots, 0), limit: endpoint.maxConcurrency, workers: held.length };
  };

  const replicas = await Promise.all(
    endpoint.baseUrls.map(async (baseUrl): Promise<ReplicaMetrics> => {
      const metricsUrl = metricsUrlOf(baseUrl);
      const page = await probe(metricsUrl, { apiKey: endpoint.apiKey, timeoutMs: SCRAPE_TIMEOUT_MS });
      const workerSlots = slotsOf(baseUrl);
      if (!page.ok) return { baseUrl, metricsUrl, available: false, reason: page.error, workerSlots };
      const values = readVllmMetrics(parsePrometheusTotals(page.body));
      if (Object.values(values).every((v) => v === null)) {
        return { baseUrl, metricsUrl, available: false, reason: "the page has no vLLM or SGLang metrics (vllm:num_requests_running, sglang:num_running_reqs, …)", workerSlots };
      }
      return { baseUrl, metricsUrl, available: true, scrapedAt: Date.now(), ...values, workerSlots };
    }),
  );
  return { id: endpoint.id, replicas };
}
