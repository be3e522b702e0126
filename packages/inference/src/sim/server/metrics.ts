import type { SimDialect } from "./config";

/** One served model's numbers on one replica, as vLLM reports them. */
export interface SimModelMetrics {
  /** Sequences admitted and not yet finished (prefill or decode). */
  running: number;
  /** Sequences in the FIFO queue, waiting for a slot or KV space. */
  waiting: number;
  /** Tokens held by this model's running sequences / the replica's KV capacity (0–1). */
  kvCacheUsage: number;
  /** Prompt tokens looked up in the prefix cache (counter). */
  prefixCacheQueries: number;
  /** Prompt tokens found in it (counter). */
  prefixCacheHits: number;
  /** Prompt tokens of admitted sequences (counter). */
  promptTokens: number;
  /** Tokens decoded so far, cancelled sequences included (counter). */
  generationTokens: number;
}

export type SimFaultKind = "error5xx" | "rateLimit" | "hang" | "drop" | "malformed" | "garbage" | "empty" | "verdictless";

export interface SimReplicaMetrics {
  models: Record<string, SimModelMetrics>;
  /** Completion requests received (valid or not). */
  requests: number;
  /** Completion requests received and not yet answered in full (or abandoned by the client). */
  openRequests: number;
  /** The most completion requests ever open at once on this replica. */
  peakOpenRequests: number;
  faults: Record<SimFaultKind, number>;
}

export function emptyModelMetrics(): SimModelMetrics {
  return { running: 0, waiting: 0, kvCacheUsage: 0, prefixCacheQueries: 0, prefixCacheHits: 0, promptTokens: 0, generationTokens: 0 };
}

interface MetricFamily {
  name: string;
  type: "gauge" | "counter";
  help: string;
  value: (m: SimModelMetrics) => number;
}

/**
 * vLLM's v1 names. Counters carry `_total` in the exposition because that is what
 * vLLM's prometheus_client emits (`vllm:prefix_cache_queries` is exposed as
 * `vllm:prefix_cache_queries_total`), so a scraper written against vLLM works here.
 */
const FAMILIES: MetricFamily[] = [
  { name: "vllm:num_requests_running", type: "gauge", help: "Number of requests in model execution batches.", value: (m) => m.running },
  { name: "vllm:num_requests_waiting", type: "gauge", help: "Number of requests waiting to be processed.", value: (m) => m.waiting },
  { name: "vllm:kv_cache_usage_perc", type: "gauge", help: "KV-cache usage. 1 means 100 percent usage.", value: (m) => m.kvCacheUsage },
  {
    name: "vllm:prefix_cache_queries_total",
    type: "counter",
    help: "Prefix cache queries, in terms of number of queried tokens.",
    value: (m) => m.prefixCacheQueries,
  },
  {
    name: "vllm:prefix_cache_hits_total",
    type: "counter",
    help: "Prefix cache hits, in terms of number of cached tokens.",
    value: (m) => m.prefixCacheHits,
  },
  { name: "vllm:prompt_tokens_total", type: "counter", help: "Number of prefill tokens processed.", value: (m) => m.promptTokens },
  { name: "vllm:generation_tokens_total", type: "counter", help: "Number of generation tokens processed.", value: (m) => m.generationTokens },
];

/**
 * SGLang's names (python/sglang/srt/metrics/collector.py, with --enable-metrics):
 * the scheduler's gauges and the tokenizer's counters. SGLang reports its prefix
 * cache as cached tokens and a hit rate, not as queries and hits.
 */
const SGLANG_FAMILIES: MetricFamily[] = [
  { name: "sglang:num_running_reqs", type: "gauge", help: "The number of running requests.", value: (m) => m.running },
  { name: "sglang:num_queue_reqs", type: "gauge", help: "The number of requests in the waiting queue.", value: (m) => m.waiting },
  { name: "sglang:token_usage", type: "gauge", help: "The token usage.", value: (m) => m.kvCacheUsage },
  { name: "sglang:cache_hit_rate", type: "gauge", help: "The prefix cache hit rate.", value: (m) => (m.prefixCacheQueries === 0 ? 0 : m.prefixCacheHits / m.prefixCacheQueries) },
  { name: "sglang:prompt_tokens_total", type: "counter", help: "Number of prefill tokens processed.", value: (m) => m.promptTokens },
  { name: "sglang:generation_tokens_total", type: "counter", help: "Number of generation tokens processed.", value: (m) => m.generationTokens },
  { name: "sglang:cached_tokens_total", type: "counter", help: "Number of cached prompt tokens.", value: (m) => m.prefixCacheHits },
];

function labelValue(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function sampleValue(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** Prometheus text exposition format 0.0.4, under vLLM's names or SGLang's. */
export function renderPrometheus(metrics: SimReplicaMetrics, dialect: SimDialect = "vllm"): string {
  const lines: string[] = [];
  const models = Object.entries(metrics.models);
  for (const family of dialect === "sglang" ? SGLANG_FAMILIES : FAMILIES) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
    for (const [model, values] of models) {
      lines.push(`${family.name}{model_name="${labelValue(model)}"} ${sampleValue(family.value(values))}`);
    }
  }
  // Not vLLM's: the simulator's own view of client concurrency, which tests and benchmarks check limits against.
  lines.push(
    "# HELP stepwiser_sim:open_requests Completion requests received and not yet answered.",
    "# TYPE stepwiser_sim:open_requests gauge",
    `stepwiser_sim:open_requests ${sampleValue(metrics.openRequests)}`,
    "# HELP stepwiser_sim:peak_open_requests The most completion requests open at once since the replica started.",
    "# TYPE stepwiser_sim:peak_open_requests gauge",
    `stepwiser_sim:peak_open_requests ${sampleValue(metrics.peakOpenRequests)}`,
  );
  return `${lines.join("\n")}\n`;
}
