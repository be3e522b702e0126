"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ErrorAlert } from "~/components/alert";
import { ProgressBar } from "~/components/progress-bar";
import { StatusBadge } from "~/components/status-badge";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

const ACTIVE = new Set(["queued", "running"]);

function seconds(from: Date | null, to: Date | null): string {
  if (!from) return "—";
  return `${(((to ?? new Date()).getTime() - from.getTime()) / 1000).toFixed(1)} s`;
}

export default function RunPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const run = useQuery({
    ...trpc.run.get.queryOptions({ id }),
    refetchInterval: (query) => (!query.state.data || ACTIVE.has(query.state.data.status) ? 1000 : false),
  });

  if (run.error) return <ErrorAlert>{errorMessage(run.error)}</ErrorAlert>;
  if (!run.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const r = run.data;
  return (
    <div className="max-w-3xl space-y-5">
      <div className="flex items-center gap-3">
        <h1 className="text-xl font-semibold">
          Run <span className="font-mono text-base text-slate-600">{r.id}</span>
        </h1>
        <StatusBadge status={r.status} />
      </div>
      <section className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <div className="flex justify-between text-sm">
          <span>
            {r.kind} · {r.unitsDone} of {r.unitsTotal} units done
            {r.unitsFailed > 0 && <span className="text-red-700"> · {r.unitsFailed} failed</span>}
          </span>
          <span className="tabular-nums text-slate-600">{Math.round(r.progress * 100)}%</span>
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
          <dd className="tabular-nums">{r.etaSeconds === null ? "—" : `about ${r.etaSeconds} s`}</dd>
          <dt className="text-slate-500">Requests</dt>
          <dd className="tabular-nums">{r.requests}</dd>
          <dt className="text-slate-500">Tokens generated</dt>
          <dd className="tabular-nums">{r.completionTokens.toLocaleString()}</dd>
        </dl>
      </section>
      {r.error && <ErrorAlert>{r.error}</ErrorAlert>}
      {r.datasetId && (
        <Link href={`/datasets/${r.datasetId}`} className="inline-block text-sm text-blue-700 hover:underline">
          Open the dataset →
        </Link>
      )}
      {r.summary !== null && r.summary !== undefined && (
        <details open className="text-sm">
          <summary className="cursor-pointer text-slate-600">Results</summary>
          <pre className="mt-2 overflow-x-auto rounded bg-slate-100 p-3 text-xs">{JSON.stringify(r.summary, null, 2)}</pre>
        </details>
      )}
      <details className="text-sm">
        <summary className="cursor-pointer text-slate-600">Configuration</summary>
        <pre className="mt-2 overflow-x-auto rounded bg-slate-100 p-3 text-xs">{JSON.stringify(r.config, null, 2)}</pre>
      </details>
    </div>
  );
}
