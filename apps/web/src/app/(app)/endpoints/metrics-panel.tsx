"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card, CardHeader, ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import type { EndpointRow } from "./endpoint-form";

type Scrape = RouterOutputs["endpoint"]["metrics"];
type ReplicaScrape = Scrape["replicas"][number];
type LiveReplica = Extract<ReplicaScrape, { available: true }>;

const POLL_MS = 2_000;

/** Scrapes kept for rates: the last two give tokens per second, the whole window the recent prefix-cache hit rate. */
const HISTORY = 16;

interface Rates {
  /** Generated tokens per second between the last two scrapes; null on the first one or after a counter reset. */
  tokensPerSecond: number | null;
  /** Prefix-cache hits / queries over the kept scrapes (~30 s); null when nothing was looked up. */
  recentHitRate: number | null;
}

function delta(current: number | null, previous: number | null): number | null {
  // A counter that went down means the server restarted.
  return current !== null && previous !== null && current >= previous ? current - previous : null;
}

function ratesOf(current: LiveReplica, previous: LiveReplica | undefined, oldest: LiveReplica | undefined): Rates {
  const generated = previous && current.scrapedAt > previous.scrapedAt ? delta(current.generationTokensTotal, previous.generationTokensTotal) : null;
  const queries = oldest ? delta(current.prefixCacheQueriesTotal, oldest.prefixCacheQueriesTotal) : null;
  const hits = oldest ? delta(current.prefixCacheHitsTotal, oldest.prefixCacheHitsTotal) : null;
  return {
    tokensPerSecond: generated !== null && previous ? generated / ((current.scrapedAt - previous.scrapedAt) / 1000) : null,
    recentHitRate: queries !== null && hits !== null && queries > 0 ? Math.min(1, hits / queries) : null,
  };
}

function liveByUrl(scrape: Scrape | undefined): Map<string, LiveReplica> {
  const out = new Map<string, LiveReplica>();
  for (const r of scrape?.replicas ?? []) if (r.available) out.set(r.baseUrl, r);
  return out;
}

const count = (value: number | null) => (value === null ? "—" : Math.round(value).toLocaleString());
const percent = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(value > 0 && value < 0.01 ? 2 : 1)}%`);
const perSecond = (value: number | null) => (value === null ? "—" : `${value.toFixed(value < 10 ? 1 : 0)} tok/s`);
const lifetimeHitRate = (r: LiveReplica) =>
  r.prefixCacheQueriesTotal && r.prefixCacheHitsTotal !== null ? r.prefixCacheHitsTotal / r.prefixCacheQueriesTotal : null;

function sumOf(values: Array<number | null>): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0);
}

/** The endpoint's replicas' /metrics, read by the server every 2 s while the page is visible. */
export function MetricsPanel({ endpoint }: { endpoint: EndpointRow }) {
  const trpc = useTRPC();
  const metrics = useQuery({ ...trpc.endpoint.metrics.queryOptions({ id: endpoint.id }), refetchInterval: POLL_MS, staleTime: 0 });

  // Recent scrapes are kept to turn counters into rates (state updated while
  // rendering: React's pattern for values derived from earlier renders).
  const [history, setHistory] = useState<Scrape[]>([]);
  if (metrics.data && metrics.data !== history[history.length - 1]) setHistory([...history, metrics.data].slice(-HISTORY));
  const previous = liveByUrl(history.length >= 2 ? history[history.length - 2] : undefined);
  const oldest = liveByUrl(history.length >= 2 ? history[0] : undefined);

  const replicas = metrics.data?.replicas ?? [];
  const live = replicas.filter((r): r is LiveReplica => r.available);
  const rates = new Map(live.map((r) => [r.baseUrl, ratesOf(r, previous.get(r.baseUrl), oldest.get(r.baseUrl))]));
  const totalQueries = sumOf(live.map((r) => r.prefixCacheQueriesTotal));
  const totalHits = sumOf(live.map((r) => r.prefixCacheHitsTotal));
  const kvValues = live.map((r) => r.kvCacheUsagePerc).filter((v): v is number => v !== null);
  const totals = {
    running: sumOf(live.map((r) => r.running)),
    waiting: sumOf(live.map((r) => r.waiting)),
    kvCacheUsagePerc: kvValues.length > 0 ? kvValues.reduce((a, b) => a + b, 0) / kvValues.length : null,
    hitRate: totalQueries ? (totalHits ?? 0) / totalQueries : null,
    tokensPerSecond: sumOf([...rates.values()].map((r) => r.tokensPerSecond)),
  };

  return (
    <Card as="section" aria-label={`Live metrics of ${endpoint.name}`} className="space-y-3 text-sm">
      <CardHeader
        title={`Live metrics · ${endpoint.name}`}
        description={`each replica's /metrics (vLLM names), all models it serves, every ${POLL_MS / 1000} s${metrics.dataUpdatedAt > 0 ? ` · updated ${new Date(metrics.dataUpdatedAt).toLocaleTimeString()}` : ""}`}
      />
      {metrics.error && <ErrorAlert>{errorMessage(metrics.error)}</ErrorAlert>}
      {metrics.isPending && <p className="text-slate-500">Reading /metrics…</p>}
      {live.length > 0 && (
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
          <Stat label="Running" value={count(totals.running)} />
          <Stat label="Waiting" value={count(totals.waiting)} />
          <Stat label="KV cache use" value={percent(totals.kvCacheUsagePerc)} hint="mean over replicas" />
          <Stat label="Prefix-cache hit rate" value={percent(totals.hitRate)} hint="since the servers started" />
          <Stat label="Generation" value={perSecond(totals.tokensPerSecond)} hint="over the last 2 s" />
        </dl>
      )}
      {replicas.length > 0 && (
        <table className="w-full border-collapse text-xs">
          <thead className="text-left text-slate-500">
            <tr>
              <th className="py-1 pr-3">Replica</th>
              <th className="py-1 pr-3 text-right">Running</th>
              <th className="py-1 pr-3 text-right">Waiting</th>
              <th className="py-1 pr-3 text-right">KV cache</th>
              <th className="py-1 pr-3 text-right">Prefix-cache hits (last ~30 s / overall)</th>
              <th className="py-1 pr-3 text-right">Generation</th>
              <th className="py-1 pr-3 text-right">Prompt tokens</th>
              <th className="py-1 pr-3 text-right">Generated tokens</th>
              <th className="py-1 text-right" title="Slots of the endpoint's per-replica limit held by workers now (shared by every worker process)">
                Worker slots
              </th>
            </tr>
          </thead>
          <tbody>
            {replicas.map((r) =>
              r.available ? (
                <tr key={r.baseUrl} className="border-t border-slate-100">
                  <td className="py-1 pr-3 font-mono">{r.baseUrl}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{count(r.running)}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{count(r.waiting)}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{percent(r.kvCacheUsagePerc)}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">
                    {percent(rates.get(r.baseUrl)?.recentHitRate ?? null)} / {percent(lifetimeHitRate(r))}
                  </td>
                  <td className="py-1 pr-3 text-right tabular-nums">{perSecond(rates.get(r.baseUrl)?.tokensPerSecond ?? null)}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{count(r.promptTokensTotal)}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{count(r.generationTokensTotal)}</td>
                  <WorkerSlotsCell slots={r.workerSlots} />
                </tr>
              ) : (
                <tr key={r.baseUrl} className="border-t border-slate-100">
                  <td className="py-1 pr-3 font-mono">{r.baseUrl}</td>
                  <td colSpan={7} className="py-1 pr-3 text-amber-800">
                    metrics unavailable ({r.metricsUrl}): {r.reason}
                  </td>
                  <WorkerSlotsCell slots={r.workerSlots} />
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function WorkerSlotsCell({ slots }: { slots: ReplicaScrape["workerSlots"] }) {
  return (
    <td className="py-1 text-right tabular-nums">
      {slots.held} / {slots.limit}
      <span className="text-slate-400"> · {slots.workers} worker{slots.workers === 1 ? "" : "s"}</span>
    </td>
  );
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="rounded border border-slate-100 bg-slate-50 px-3 py-2">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums">{value}</dd>
      {hint && <dd className="text-xs text-slate-400">{hint}</dd>}
    </div>
  );
}
