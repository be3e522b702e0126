"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Badge, ButtonLink, DataTable, dataColumns, ErrorAlert, ProgressBar, StatusBadge, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { anyRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

type Run = RouterOutputs["run"]["list"]["runs"][number];

/** A run by its name, linked to its page, with the end of its id and its tags. */
function RunCell({ run }: { run: Run }) {
  return (
    <div className="space-y-0.5">
      <Link href={`/runs/${run.id}`} className="text-blue-700 hover:underline" data-testid="run-name">
        {run.name}
      </Link>
      <div className="flex flex-wrap items-center gap-1">
        <span className="font-mono text-xs text-slate-500">{run.id.slice(-8)}</span>
        {run.tags.map((tag) => (
          <Badge key={tag}>{tag}</Badge>
        ))}
      </div>
    </div>
  );
}

const column = dataColumns<Run>();
const COLUMNS: DataColumn<Run>[] = [
  column.accessor("name", { header: "Run", cell: (c) => <RunCell run={c.row.original} /> }),
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
  column.display({
    id: "tokens",
    header: "Tokens",
    meta: { className: "tabular-nums" },
    cell: ({ row: { original: run } }) => (run.promptTokens + run.completionTokens).toLocaleString(),
  }),
  column.accessor("createdAt", { header: "Created", cell: (c) => c.getValue().toLocaleString(), meta: { className: "whitespace-nowrap text-slate-600" } }),
];

/** Every run over this dataset, its imports and exports included, newest first, live while any is going. */
export default function DatasetRunsPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const canLaunch = useCan("research.manage");
  const runs = useQuery({
    ...trpc.run.list.queryOptions({ datasetId: id, includeDataJobs: true, pageSize: 200 }),
    refetchInterval: (query) => (anyRunActive(query.state.data?.runs) ? 2000 : false),
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
      {runs.data?.runs.length === 0 && <p className="text-sm text-slate-500">No run over this dataset yet.</p>}
      {runs.data && runs.data.runs.length > 0 && (
        <DataTable data={runs.data.runs} columns={COLUMNS} getRowId={(run) => run.id} rowAttributes={() => ({ "data-testid": "run-row" })} testId="dataset-runs" />
      )}
      {runs.data && runs.data.total > runs.data.runs.length && (
        <p className="text-sm text-slate-500">
          The newest {runs.data.runs.length} of {runs.data.total} runs;{" "}
          <Link href={`/runs?dataset=${encodeURIComponent(id)}`} className="text-blue-700 hover:underline">
            all of them on the Runs page
          </Link>
          .
        </p>
      )}
    </div>
  );
}
