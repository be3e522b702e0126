"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Card, ErrorAlert, ProgressBar, StatusBadge } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { isRunActive } from "~/lib/run-status";
import { useTRPC } from "~/trpc/react";
import { RunDescription } from "./run-description";
import { RunCharts } from "./run-charts";
import { RunConfidence } from "./run-confidence";
import { RunControls } from "./run-controls";
import { RunFailures } from "./run-failures";
import { ImportReport } from "./import-report/import-report";
import { OfflineBatch } from "./offline-batch";
import { RunResults } from "./results/run-results";
import { SftExportPanel } from "./sft-export";

function seconds(from: Date | null, to: Date | null): string {
  if (!from) return "—";
  return `${(((to ?? new Date()).getTime() - from.getTime()) / 1000).toFixed(1)} s`;
}

function duration(total: number): string {
  if (total < 90) return `${total} s`;
  if (total < 5400) return `${Math.round(total / 60)} min`;
  return `${(total / 3600).toFixed(1)} h`;
}

export default function RunPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const live = (data: { status: string } | undefined) => (!data || isRunActive(data.status) ? 1000 : false);
  const run = useQuery({ ...trpc.run.get.queryOptions({ id }), refetchInterval: (query) => live(query.state.data) });
  const active = !run.data || isRunActive(run.data.status);
  const progress = useQuery({ ...trpc.run.progress.queryOptions({ id }), refetchInterval: active ? 2000 : false });
  const failures = useQuery({ ...trpc.run.failures.queryOptions({ id }), refetchInterval: active ? 3000 : false });

  if (run.error) return <ErrorAlert>{errorMessage(run.error)}</ErrorAlert>;
  if (!run.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const r = run.data;
  const points = progress.data?.points ?? [];
  const lastRate = [...points].reverse().find((p) => p.tokensPerSecond !== null)?.tokensPerSecond ?? null;
  const wall = r.startedAt ? ((r.finishedAt ?? new Date()).getTime() - r.startedAt.getTime()) / 1000 : 0;
  const meanRate = wall > 0 ? r.completionTokens / wall : null;
  const tokensPerSecond = isRunActive(r.status) ? lastRate : meanRate;

  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold" data-testid="run-name">
          {r.name}
        </h1>
        <span className="text-sm text-slate-600">
          {r.kind.replaceAll("_", "-")} run <span className="font-mono text-xs">{r.id}</span>
        </span>
        <StatusBadge status={r.status} />
        <div className="ml-auto">
          <RunControls id={r.id} status={r.status} cancelRequested={r.cancelRequestedAt !== null} />
        </div>
      </div>
      <RunDescription run={r} />
      {r.datasetId && (
        <nav aria-label="Run context" className="flex gap-4 text-sm">
          <Link href={`/datasets/${r.datasetId}`} className="text-blue-700 hover:underline">
            Open the dataset →
          </Link>
          <Link href={`/datasets/${r.datasetId}/runs`} className="text-blue-700 hover:underline">
            Runs of this dataset →
          </Link>
        </nav>
      )}
      <Card as="section" aria-label="Progress" className="space-y-2">
        <div className="flex justify-between text-sm">
          <span>
            {r.unitsDone} of {r.unitsTotal} units done
            {r.unitsFailed > 0 && <span className="text-red-700"> · {r.unitsFailed} failed</span>}
          </span>
          <span className="tabular-nums text-slate-600" data-testid="run-percent">
            {Math.round(r.progress * 100)}%
          </span>
        </div>
        <ProgressBar done={r.unitsDone} total={r.unitsTotal} label="Run progress" />
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 pt-2 text-sm sm:grid-cols-4">
          <dt className="text-slate-500">Status</dt>
          <dd>{r.status.replaceAll("_", " ")}</dd>
          <dt className="text-slate-500">Attempts</dt>
          <dd className="tabular-nums">{r.attempts}</dd>
          <dt className="text-slate-500">Created</dt>
          <dd>{r.createdAt.toLocaleString()}</dd>
          <dt className="text-slate-500">Wall time</dt>
          <dd className="tabular-nums">{seconds(r.startedAt, r.finishedAt)}</dd>
          <dt className="text-slate-500">Time left</dt>
          <dd className="tabular-nums">{r.etaSeconds === null ? "—" : `about ${duration(r.etaSeconds)}`}</dd>
          <dt className="text-slate-500">{isRunActive(r.status) ? "Tokens/s now" : "Tokens/s (mean)"}</dt>
          <dd className="tabular-nums">{tokensPerSecond === null ? "—" : Math.round(tokensPerSecond).toLocaleString()}</dd>
          <dt className="text-slate-500">Requests</dt>
          <dd className="tabular-nums">{r.requests.toLocaleString()}</dd>
          <dt className="text-slate-500">Tokens generated</dt>
          <dd className="tabular-nums">{r.completionTokens.toLocaleString()}</dd>
          <dt className="text-slate-500">Prompt tokens</dt>
          <dd className="tabular-nums">{r.promptTokens.toLocaleString()}</dd>
          <dt className="text-slate-500">Cached prompt tokens</dt>
          <dd className="tabular-nums">{r.cachedTokens.toLocaleString()}</dd>
        </dl>
      </Card>
      {r.error && <ErrorAlert>{r.error}</ErrorAlert>}
      {progress.error ? <ErrorAlert>{errorMessage(progress.error)}</ErrorAlert> : progress.data && <RunCharts points={points} startedAt={r.startedAt} />}
      {r.kind === "annotate" && <RunConfidence runId={r.id} active={isRunActive(r.status)} />}
      {r.kind === "import" && <ImportReport runId={r.id} active={isRunActive(r.status)} />}
      <OfflineBatch runId={r.id} kind={r.kind} status={r.status} />
      {failures.error ? <ErrorAlert>{errorMessage(failures.error)}</ErrorAlert> : failures.data && <RunFailures failures={failures.data} />}
      {r.summary !== null && r.summary !== undefined && <RunResults runId={r.id} summary={r.summary} />}
      {r.status === "completed" && (r.kind === "segment" || r.kind === "judge") && <SftExportPanel kind={r.kind === "segment" ? "segmentation-sft" : "selection"} runId={r.id} />}
      <details className="text-sm">
        <summary className="cursor-pointer text-slate-600">Configuration snapshot</summary>
        <pre className="mt-2 overflow-x-auto rounded bg-slate-100 p-3 text-xs">{JSON.stringify(r.config, null, 2)}</pre>
      </details>
    </div>
  );
}
