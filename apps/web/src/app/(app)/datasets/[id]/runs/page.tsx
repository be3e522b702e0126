"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ButtonLink, DataTable, dataColumns, ErrorAlert, ProgressBar, StatusBadge, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { anyRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

type Run = RouterOutputs["run"]["list"][number];

/** A run by the end of its id, linked to its page. */
function RunLink({ id }: { id: string }) {
  return (
    <Link href={`/runs/${id}`} className="text-blue-700 hover:underline">
      {id.slice(-8)}
    </Link>
  );
}

const column = dataColumns<Run>();
const COLUMNS: DataColumn<Run>[] = [
  column.accessor("id", { header: "Run", meta: { className: "font-mono" }, cell: (c) => <RunLink id={c.getValue()} /> }),
  column.accessor("kind", { header: "Kind", cell: (c) => c.getValue().replaceAll("_", "-") }),
  column.accessor("status", { header: "Status", cell: (c) => <StatusBadge status={c.getValue()} /> }),
  column.display({
    id: "progress",
    header: "Progress",
    meta: { headerClassName: "w-48" },
    cell: ({ row: { original: run } }) => (
      <>
        <ProgressBar done={run.unitsDone} total={run.unitsTotal} label={`Run ${run.id} progress`} />
        <span className="text-xs text-slate-500 tabular-nums">
          {run.unitsDone}/{run.unitsTotal}
          {run.unitsFailed > 0 ? ` · ${run.unitsFailed} failed` : ""}
        </span>
      </>
    ),
  }),
  column.accessor("completionTokens", { header: "Tokens", cell: (c) => c.getValue().toLocaleString(), meta: { className: "tabular-nums" } }),
  column.accessor("createdAt", { header: "Created", cell: (c) => c.getValue().toLocaleString(), meta: { className: "whitespace-nowrap text-slate-600" } }),
];

/** Every run over this dataset, newest first, live while any is going. */
export default function DatasetRunsPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const canLaunch = useCan("research.manage");
  const runs = useQuery({
    ...trpc.run.list.queryOptions({ datasetId: id, limit: 200 }),
    refetchInterval: (query) => (anyRunActive(query.state.data) ? 2000 : false),
  });

  return (
    <div className="space-y-3">
      <div className="flex items-center gap-3">
        <h2 className="text-base font-semibold">Run history</h2>
        {canLaunch && (
          <ButtonLink href={`/runs/new?datasetId=${encodeURIComponent(id)}`} variant="primary" className="ml-auto">
            Launch a run
          </ButtonLink>
        )}
      </div>
      {runs.error && <ErrorAlert>{errorMessage(runs.error)}</ErrorAlert>}
      {!runs.data && !runs.error && <p className="text-sm text-slate-500">Loading…</p>}
      {runs.data?.length === 0 && <p className="text-sm text-slate-500">No run over this dataset yet.</p>}
      {runs.data && runs.data.length > 0 && <DataTable data={runs.data} columns={COLUMNS} getRowId={(run) => run.id} />}
    </div>
  );
}
