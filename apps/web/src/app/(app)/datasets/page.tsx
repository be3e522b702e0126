"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { DataTable, dataColumns, ErrorAlert, StatusBadge, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { ImportPanel } from "./import-panel";
import { RecentImports } from "./recent-imports";

type Dataset = RouterOutputs["dataset"]["list"][number];

function DatasetLink({ dataset: d }: { dataset: Dataset }) {
  return (
    <Link href={`/datasets/${d.id}`} className="font-medium text-blue-700 hover:underline">
      {d.name}
    </Link>
  );
}

const column = dataColumns<Dataset>();
const COLUMNS: DataColumn<Dataset>[] = [
  column.accessor("name", { header: "Name", cell: ({ row }) => <DatasetLink dataset={row.original} /> }),
  column.accessor("source", { header: "Source", cell: ({ row: { original: d } }) => `${d.source}${d.license ? ` · ${d.license}` : ""}`, meta: { className: "text-slate-600" } }),
  column.accessor("solutionCount", { header: "Solutions", meta: { align: "right" } }),
  column.accessor("problemCount", { header: "Problems", meta: { align: "right" } }),
  column.accessor("status", {
    header: "Status",
    cell: ({ row: { original: d } }) =>
      d.importRunId ? (
        <Link href={`/runs/${d.importRunId}`} title="Open the import run">
          <StatusBadge status={d.status} />
        </Link>
      ) : (
        <StatusBadge status={d.status} />
      ),
  }),
  column.accessor("createdAt", { header: "Imported", cell: (c) => c.getValue().toLocaleString(), meta: { className: "text-slate-600" } }),
];

export default function DatasetsPage() {
  const trpc = useTRPC();
  const canImport = useCan("research.manage");
  const datasets = useQuery({
    ...trpc.dataset.list.queryOptions(),
    // Datasets still importing change under our feet; refresh until they settle.
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === "importing") ? 2000 : false),
  });

  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Datasets</h1>
      {canImport && <ImportPanel />}
      {datasets.error && <ErrorAlert>{errorMessage(datasets.error)}</ErrorAlert>}
      {datasets.isPending && <p className="text-sm text-slate-500">Loading…</p>}
      {datasets.data?.length === 0 && <p className="text-sm text-slate-600">No datasets yet. Import a file to begin.</p>}
      {datasets.data && datasets.data.length > 0 && <DataTable data={datasets.data} columns={COLUMNS} getRowId={(d) => d.id} />}
      <RecentImports />
    </div>
  );
}
