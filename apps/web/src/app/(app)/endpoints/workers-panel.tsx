"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

const POLL_MS = 5_000;

const ago = (date: Date) => {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(date).getTime()) / 1000));
  return seconds < 120 ? `${seconds} s ago` : seconds < 7200 ? `${Math.round(seconds / 60)} min ago` : `${Math.round(seconds / 3600)} h ago`;
};

/** The worker processes serving the job queues, their runs and the endpoint slots they hold. */
export function WorkersPanel() {
  const trpc = useTRPC();
  const workers = useQuery({ ...trpc.worker.list.queryOptions(), refetchInterval: POLL_MS });
  const rows = workers.data ?? [];
  const live = rows.filter((w) => w.live);

  return (
    <section aria-label="Workers" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
      <div className="flex flex-wrap items-baseline gap-x-3">
        <h2 className="font-semibold">Workers</h2>
        <span className="text-xs text-slate-500">
          {live.length} live · processes serving the job queues; a run uses every live worker, and the endpoints&apos; limits hold for all of them together
        </span>
      </div>
      {workers.error && <ErrorAlert>{errorMessage(workers.error)}</ErrorAlert>}
      {workers.isPending && <p className="text-slate-500">Loading…</p>}
      {workers.data?.length === 0 && <p className="text-slate-600">No worker is running: queued runs wait until one starts (`npm run worker`).</p>}
      {rows.length > 0 && (
        <table className="w-full border-collapse text-xs">
          <thead className="text-left text-slate-500">
            <tr>
              <th className="py-1 pr-3">Worker</th>
              <th className="py-1 pr-3">Host / pid</th>
              <th className="py-1 pr-3">Started</th>
              <th className="py-1 pr-3">Last seen</th>
              <th className="py-1 pr-3 text-right">Runs executing</th>
              <th className="py-1 text-right">Endpoint slots held</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((w) => (
              <tr key={w.id} className={`border-t border-slate-100 ${w.live ? "" : "text-slate-400"}`}>
                <td className="py-1 pr-3 font-mono">{w.id}</td>
                <td className="py-1 pr-3">
                  {w.hostname} / {w.pid}
                </td>
                <td className="py-1 pr-3">{new Date(w.startedAt).toLocaleString()}</td>
                <td className="py-1 pr-3">{w.live ? ago(w.heartbeatAt) : `gone (${ago(w.heartbeatAt)})`}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{w.activeRuns}</td>
                <td className="py-1 text-right tabular-nums">
                  {w.slots}
                  {w.replicasHeld > 0 && <span className="text-slate-400"> on {w.replicasHeld} replica{w.replicasHeld === 1 ? "" : "s"}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
