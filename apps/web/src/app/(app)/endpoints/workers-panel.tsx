"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { Card, CardHeader, DataTable, dataColumns, ErrorAlert, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

const POLL_MS = 5_000;

const ago = (date: Date) => {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(date).getTime()) / 1000));
  return seconds < 120 ? `${seconds} s ago` : seconds < 7200 ? `${Math.round(seconds / 60)} min ago` : `${Math.round(seconds / 3600)} h ago`;
};

type Worker = RouterOutputs["worker"]["list"][number];

function SlotsCell({ worker: w }: { worker: Worker }) {
  return (
    <>
      {w.slots}
      {w.replicasHeld > 0 && <span className="text-slate-400"> on {w.replicasHeld} replica{w.replicasHeld === 1 ? "" : "s"}</span>}
    </>
  );
}

const column = dataColumns<Worker>();
const COLUMNS: DataColumn<Worker>[] = [
  column.accessor("id", { header: "Worker", meta: { className: "font-mono" } }),
  column.display({ id: "host", header: "Host / pid", cell: ({ row: { original: w } }) => `${w.hostname} / ${w.pid}` }),
  column.accessor("startedAt", { header: "Started", cell: (c) => new Date(c.getValue()).toLocaleString() }),
  column.display({ id: "lastSeen", header: "Last seen", cell: ({ row: { original: w } }) => (w.live ? ago(w.heartbeatAt) : `gone (${ago(w.heartbeatAt)})`) }),
  column.accessor("activeRuns", { header: "Runs executing", meta: { align: "right" } }),
  column.display({ id: "slots", header: "Endpoint slots held", meta: { align: "right" }, cell: ({ row }) => <SlotsCell worker={row.original} /> }),
];

/** The worker processes serving the job queues, their runs and the endpoint slots they hold. */
export function WorkersPanel() {
  const trpc = useTRPC();
  const workers = useQuery({ ...trpc.worker.list.queryOptions(), refetchInterval: POLL_MS });
  const rows = workers.data ?? [];
  const live = rows.filter((w) => w.live);

  return (
    <Card as="section" aria-label="Workers" className="space-y-3 text-sm">
      <CardHeader
        title="Workers"
        description={`${live.length} live · processes serving the job queues; a run uses every live worker, and the endpoints' limits hold for all of them together`}
      />
      {workers.error && <ErrorAlert>{errorMessage(workers.error)}</ErrorAlert>}
      {workers.isPending && <p className="text-slate-500">Loading…</p>}
      {workers.data?.length === 0 && <p className="text-slate-600">No worker is running: queued runs wait until one starts (`npm run worker`).</p>}
      {rows.length > 0 && <DataTable look="compact" data={rows} columns={COLUMNS} getRowId={(w) => w.id} rowAttributes={(w) => ({ className: w.live ? undefined : "text-slate-400" })} />}
    </Card>
  );
}
