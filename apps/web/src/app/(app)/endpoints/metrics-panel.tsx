"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card, CardHeader, DataTable, dataColumns, ErrorAlert, type DataColumn } from "~/components/ui";
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
        <DataTable
          look="compact"
          data={replicas}
          columns={replicaColumns(rates)}
          getRowId={(r) => r.baseUrl}
          // A replica whose /metrics failed says why across the value columns.
          cellSpan={(r, columnId) => (!r.available && columnId === "running" ? VALUE_COLUMNS : 1)}
        />
      )}
    </Card>
  );
}

const column = dataColumns<ReplicaScrape>();
/** Columns from Running to Generated tokens: an unavailable replica's reason spans them. */
const VALUE_COLUMNS = 7;

/** Requests running on a live replica, or why its /metrics could not be read. */
function RunningCell({ replica: r }: { replica: ReplicaScrape }) {
  if (r.available) return count(r.running);
  return (
    <span className="block text-left text-amber-800">
      metrics unavailable ({r.metricsUrl}): {r.reason}
    </span>
  );
}

function replicaColumns(rates: Map<string, Rates>): DataColumn<ReplicaScrape>[] {
  const live = (show: (r: LiveReplica) => string) => (r: ReplicaScrape) => (r.available ? show(r) : "");
  const value = (id: string, header: string, show: (r: LiveReplica) => string) => column.display({ id, header, meta: { align: "right" }, cell: ({ row }) => live(show)(row.original) });
  return [
    column.accessor("baseUrl", { header: "Replica", meta: { className: "font-mono" } }),
    column.display({ id: "running", header: "Running", meta: { align: "right" }, cell: ({ row }) => <RunningCell replica={row.original} /> }),
    value("waiting", "Waiting", (r) => count(r.waiting)),
    value("kv", "KV cache", (r) => percent(r.kvCacheUsagePerc)),
    value("hits", "Prefix-cache hits (last ~30 s / overall)", (r) => `${percent(rates.get(r.baseUrl)?.recentHitRate ?? null)} / ${percent(lifetimeHitRate(r))}`),
    value("generation", "Generation", (r) => perSecond(rates.get(r.baseUrl)?.tokensPerSecond ?? null)),
    value("prompt", "Prompt tokens", (r) => count(r.promptTokensTotal)),
    value("generated", "Generated tokens", (r) => count(r.generationTokensTotal)),
    column.accessor("workerSlots", {
      header: () => <span title="Slots of the endpoint's per-replica limit held by workers now (shared by every worker process)">Worker slots</span>,
      meta: { align: "right" },
      cell: ({ row: { original: r } }) => (
        <>
          {r.workerSlots.held} / {r.workerSlots.limit}
          <span className="text-slate-400">
            {" "}
            · {r.workerSlots.workers} worker{r.workerSlots.workers === 1 ? "" : "s"}
          </span>
        </>
      ),
    }),
  ];
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
