import type { Db } from "@stepwiser/db";
import { runEndpoints } from "@stepwiser/jobs";

/** Runs read per endpoint: the latest that sent requests to it alone. */
const RECENT_RUNS = 20;
/** Requests without one cached prompt token after which the server is taken not to report them. */
export const MANY_REQUESTS = 200;

export interface CacheReport {
  /** The latest runs whose counters are this endpoint's alone (runs on two endpoints count them together). */
  runs: number;
  requests: number;
  cachedTokens: number;
  /** Why the cost of these runs is likely overstated; null when cached tokens were reported or too few requests were sent. */
  warning: string | null;
}

interface ReportedEndpoint {
  id: string;
  name: string;
  model: string;
  role: "policy" | "judge" | "segmenter";
  promptPricePerMTokens: number | null;
  cachedPromptPricePerMTokens: number | null;
  completionPricePerMTokens: number | null;
}

/**
 * What a priced endpoint's runs reported of cached prompt tokens. Every run kind
 * sends prompts that share a prefix (the instructions, a solution cut before
 * each chunk, K samples of one prompt), so a prefix-caching server serves some
 * from its cache; zero cached tokens over many requests means the server does
 * not report them (vLLM without --enable-prompt-tokens-details, SGLang without
 * --enable-cache-report), and the runs' costs count every prompt token at the
 * full price. Endpoints without a price have no report.
 */
export async function cacheReports(db: Db, endpoints: readonly ReportedEndpoint[]): Promise<Map<string, CacheReport>> {
  const reports = new Map<string, CacheReport>();
  for (const endpoint of endpoints) {
    const priced = [endpoint.promptPricePerMTokens, endpoint.cachedPromptPricePerMTokens, endpoint.completionPricePerMTokens].some((price) => price !== null);
    if (!priced) continue;
    const candidates = await db.run.findMany({
      where: { requests: { gt: 0 }, models: { some: { role: endpoint.role, model: endpoint.model } } },
      orderBy: { createdAt: "desc" },
      take: RECENT_RUNS * 2,
      select: { id: true, kind: true, config: true, requests: true, cachedTokens: true },
    });
    const own = candidates
      .filter((run) => {
        const used = runEndpoints(run);
        return used !== null && used.length === 1 && used[0]!.endpoint.name === endpoint.name;
      })
      .slice(0, RECENT_RUNS);
    const requests = own.reduce((sum, run) => sum + run.requests, 0);
    const cachedTokens = own.reduce((sum, run) => sum + Number(run.cachedTokens), 0);
    const warning =
      cachedTokens === 0 && requests >= MANY_REQUESTS
        ? `no cached prompt token was reported over ${requests} requests of its last ${own.length} run${own.length === 1 ? "" : "s"}: the server likely does not report them ` +
          "(start vLLM with --enable-prompt-tokens-details, SGLang with --enable-cache-report), so those runs' costs count every prompt token at the full prompt price"
        : null;
    reports.set(endpoint.id, { runs: own.length, requests, cachedTokens, warning });
  }
  return reports;
}
