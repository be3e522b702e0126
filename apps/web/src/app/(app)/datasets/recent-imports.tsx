"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Card, DataTable, dataColumns, ErrorAlert, ProgressBar, StatusBadge, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { formatBytes } from "~/lib/format-bytes";
import { anyRunActive, isRunActive } from "~/lib/run-status";
import { useTRPC } from "~/trpc/react";
import { importSummaryText } from "./import-run-status";

type ImportRun = RouterOutputs["import"]["list"][number];

/** The uploaded file's name and size. */
function FileCell({ run: r }: { run: ImportRun }) {
  return (
    <>
      {r.fileName ?? "—"}
      {r.sizeBytes !== null && <span className="block text-xs text-slate-500">{formatBytes(r.sizeBytes)}</span>}
    </>
  );
}

const column = dataColumns<ImportRun>();
const COLUMNS: DataColumn<ImportRun>[] = [
  column.accessor("fileName", { header: "File", meta: { className: "break-all" }, cell: ({ row }) => <FileCell run={row.original} /> }),
  column.accessor("format", { header: "Format", cell: (c) => c.getValue() ?? "—", meta: { className: "text-slate-600" } }),
  column.accessor("status", {
    header: "Status",
    cell: ({ row: { original: r } }) => (
      <Link href={`/runs/${r.id}`} title="Open the import run">
        <StatusBadge status={r.status} />
      </Link>
    ),
  }),
  column.display({
    id: "result",
    header: "Result",
    meta: { className: "min-w-48 text-slate-700" },
    cell: ({ row: { original: r } }) =>
      isRunActive(r.status) ? (
        <ProgressBar done={r.unitsDone} total={r.unitsTotal} label={`Import of ${r.fileName ?? r.id}`} />
      ) : r.error ? (
        <span className="text-red-700">{r.error}</span>
      ) : r.summary ? (
        importSummaryText(r.summary)
      ) : (
        "—"
      ),
  }),
  column.accessor("dataset", {
    header: "Dataset",
    cell: ({ row: { original: r } }) =>
      r.dataset ? (
        <Link href={`/datasets/${r.dataset.id}`} className="text-blue-700 hover:underline">
          {r.dataset.name}
        </Link>
      ) : (
        "—"
      ),
  }),
  column.accessor("createdAt", { header: "Started", cell: (c) => c.getValue().toLocaleString(), meta: { className: "text-slate-600" } }),
];

/** The latest import runs: which file, which format, how far, and what each wrote. */
export function RecentImports() {
  const trpc = useTRPC();
  const imports = useQuery({
    ...trpc.import.list.queryOptions({ limit: 10 }),
    refetchInterval: (query) => (anyRunActive(query.state.data) ? 2000 : false),
  });
  if (imports.error) return <ErrorAlert>{errorMessage(imports.error)}</ErrorAlert>;
  if (!imports.data || imports.data.length === 0) return null;
  return (
    <Card as="details" padding="none">
      <summary className="cursor-pointer px-3 py-2 text-sm font-medium text-slate-700">Recent imports</summary>
      <DataTable look="plain" data={imports.data} columns={COLUMNS} getRowId={(r) => r.id} rowAttributes={() => ({ className: "align-top", "data-testid": "import-row" })} />
    </Card>
  );
}
