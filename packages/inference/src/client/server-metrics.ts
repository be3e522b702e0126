/**
 * Reads a vLLM-style Prometheus `/metrics` page (vLLM, SGLang with
 * `--enable-metrics`, the simulated cluster): running and waiting requests, KV
 * cache use, prefix-cache queries and hits, token counters.
 */
export type MetricSamples = Map<string, number>;

/** Sums every sample of each metric over its labels: `name → total`. */
export function parsePrometheusTotals(text: string): MetricSamples {
  const totals: MetricSamples = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const nameEnd = line.search(/[{\s]/);
    if (nameEnd <= 0) continue;
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (!Number.isFinite(value)) continue;
    const name = line.slice(0, nameEnd);
    totals.set(name, (totals.get(name) ?? 0) + value);
  }
  return totals;
}

/** The metrics origin of an OpenAI base URL: `http://h:8000/v1` → `http://h:8000/metrics`. */
export function metricsUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/metrics`;
}

/** One metric summed over replicas (and labels). */
export async function sumServerMetric(baseUrls: readonly string[], name: string, timeoutMs = 5_000): Promise<number> {
  let total = 0;
  for (const baseUrl of baseUrls) {
    const response = await fetch(metricsUrlOf(baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`${metricsUrlOf(baseUrl)}: HTTP ${response.status}`);
    total += parsePrometheusTotals(await response.text()).get(name) ?? 0;
  }
  return total;
}
