"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { DataTable, dataColumns, ErrorAlert, ProgressBar, StatusBadge, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { formatBytes } from "~/lib/format-bytes";
import { anyRunActive, isRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { labelRuleKey } from "@stepwiser/core";

type ExportRun = RouterOutputs["export"]["list"][number];

/** What an export is, in a few words: its kind and the options that tell two of a kind apart. */
export function exportTitle(run: Pick<ExportRun, "spec">): string {
  const spec = run.spec;
  if (!spec) return "export";
  switch (spec.kind) {
    case "training-set":
      return `training set · ${spec.format}`;
    case "segmentation-sft":
      return `self-segmentation SFT · ${spec.format}`;
    case "selection":
      return `stepwise selection · ${spec.baseline === "outcome" ? "outcome-only baseline" : `${spec.aggregate} chunk score`} · ${spec.format}`;
    case "labels":
      return "labels JSONL";
    case "predictions":
      return "predictions JSONL";
    case "batch-requests":
      return "batch requests JSONL";
  }
}

/** The options of an SFT export under its title: what it kept and its seed. */
export function sftExportDetails(spec: ExportRun["spec"]): string | null {
  if (spec?.kind === "segmentation-sft") return `${spec.includeIncorrect ? "any response" : "correct responses"} · at most ${spec.maxPerProblem} per problem · seed ${spec.seed}`;
  if (spec?.kind === "selection") return `${spec.baseline === "outcome" ? `random correct response (aggregate ${spec.aggregate} not used)` : `best ${spec.aggregate} chunk score`} · seed ${spec.seed}`;
  return null;
}

type SftSplit = NonNullable<ExportRun["sft"]>["splits"][number];

const sftSplitColumn = dataColumns<SftSplit>();
const SFT_SPLIT_COLUMNS: DataColumn<SftSplit>[] = [
  sftSplitColumn.accessor("split", { header: "split" }),
  sftSplitColumn.accessor("problems", { header: "problems", cell: (c) => c.getValue().toLocaleString(), meta: { align: "right" } }),
  sftSplitColumn.accessor("rows", { header: "rows", cell: (c) => c.getValue().toLocaleString(), meta: { align: "right" } }),
  sftSplitColumn.accessor("fileName", { header: "file", meta: { className: "font-mono" } }),
];

/** Rows and problems per split of an SFT export (segmentation-sft, selection). */
export function SftSplits({ sft }: { sft: NonNullable<ExportRun["sft"]> }) {
  return <DataTable look="compact" testId="export-sft-splits" data={sft.splits} columns={SFT_SPLIT_COLUMNS} getRowId={(s) => s.split} rowAttributes={(s) => ({ "data-split": s.split, "data-rows": s.rows })} />;
}

type Split = ExportRun["splits"][number];

const splitColumn = dataColumns<Split>();
const count = (value: number) => value.toLocaleString();
const SPLIT_COLUMNS: DataColumn<Split>[] = [
  splitColumn.accessor("split", { header: "split" }),
  splitColumn.accessor("problems", { header: "problems", cell: (c) => count(c.getValue()), meta: { align: "right" } }),
  splitColumn.accessor("rows", { header: "rows", cell: (c) => count(c.getValue()), meta: { align: "right" } }),
  splitColumn.display({ id: "balance", header: "+ / −", cell: ({ row }) => `${count(row.original.positive)} / ${count(row.original.negative)}`, meta: { align: "right" } }),
  splitColumn.accessor("filteredOut", { header: "filtered out", cell: (c) => count(c.getValue()), meta: { align: "right" } }),
];

/** What an export holds: rows per split for a training set, lines for the JSONL exports. */
function ExportReport({ run }: { run: ExportRun }) {
  if (run.sft) return <SftSplits sft={run.sft} />;
  if (run.splits.length > 0) {
    return <DataTable look="compact" testId="export-splits" data={run.splits} columns={SPLIT_COLUMNS} getRowId={(s) => s.split} rowAttributes={(s) => ({ "data-split": s.split })} />;
  }
  const report = run.report as { chunks?: number; solutions?: number } | null;
  if (report?.chunks !== undefined) return <span>{report.chunks.toLocaleString()} chunks</span>;
  if (report?.solutions !== undefined) return <span>{report.solutions.toLocaleString()} solutions</span>;
  return <span className="text-slate-400">—</span>;
}

const column = dataColumns<ExportRun>();

function ExportCell({ run }: { run: ExportRun }) {
  return (
    <>
      <Link href={`/runs/${run.id}`} className="font-medium text-blue-700 hover:underline">
        {exportTitle(run)}
      </Link>
      {run.spec?.kind === "training-set" && (
        <span className="block text-xs text-slate-500">
          {labelRuleKey(run.spec.labelRule)} · seed {run.spec.seed ?? 0}
        </span>
      )}
      {sftExportDetails(run.spec) && <span className="block text-xs text-slate-500">{sftExportDetails(run.spec)}</span>}
    </>
  );
}

function SourceCell({ run }: { run: ExportRun }) {
  if (!run.source) return "—";
  return (
    <>
      <Link href={`/runs/${run.source.id}`} className="hover:underline">
        {run.source.kind ?? "run"} run
      </Link>
      {run.source.dataset && <span className="block text-xs">{run.source.dataset.name}</span>}
    </>
  );
}

function StatusCell({ run }: { run: ExportRun }) {
  return (
    <>
      <StatusBadge status={run.status} />
      {isRunActive(run.status) && (
        <div className="mt-1">
          <ProgressBar done={run.unitsDone} total={run.unitsTotal} label={`Export ${run.id} progress`} />
        </div>
      )}
      {run.error && <p className="mt-1 text-xs whitespace-pre-wrap text-red-700">{run.error}</p>}
    </>
  );
}

/** An export's complete files, each a download link for those who may download (`research.manage`). */
export function ExportFiles({ run, canDownload }: { run: Pick<ExportRun, "files">; canDownload: boolean }) {
  return (
    <ul className="space-y-0.5">
      {run.files.map((file) => (
        <li key={file.id} className="whitespace-nowrap">
          {canDownload ? (
            <a href={`/api/files/${file.id}`} download={file.fileName} data-testid="export-file-link" className="text-blue-700 hover:underline">
              {file.fileName}
            </a>
          ) : (
            file.fileName
          )}{" "}
          <span className="text-xs text-slate-500">{formatBytes(file.sizeBytes)}</span>
        </li>
      ))}
    </ul>
  );
}

function exportColumns(canDownload: boolean): DataColumn<ExportRun>[] {
  return [
    column.display({ id: "export", header: "Export", cell: ({ row }) => <ExportCell run={row.original} /> }),
    column.display({ id: "source", header: "Source", meta: { className: "text-slate-600" }, cell: ({ row }) => <SourceCell run={row.original} /> }),
    column.display({ id: "status", header: "Status", meta: { className: "min-w-36" }, cell: ({ row }) => <StatusCell run={row.original} /> }),
    column.display({ id: "contents", header: "Contents", cell: ({ row }) => <ExportReport run={row.original} /> }),
    column.display({ id: "files", header: "Files", cell: ({ row }) => <ExportFiles run={row.original} canDownload={canDownload} /> }),
    column.accessor("createdAt", { header: "Created", cell: (c) => c.getValue().toLocaleString(), meta: { className: "text-slate-600" } }),
  ];
}

/** Export runs, newest first, live while any of them is going; files download through `/api/files/{id}`. */
export function ExportList() {
  const trpc = useTRPC();
  const canDownload = useCan("research.manage");
  const exports = useQuery({
    ...trpc.export.list.queryOptions({}),
    refetchInterval: (query) => (anyRunActive(query.state.data) ? 1500 : false),
  });
  const columns = useMemo(() => exportColumns(canDownload), [canDownload]);
  if (exports.error) return <ErrorAlert>{errorMessage(exports.error)}</ErrorAlert>;
  if (!exports.data) return <p className="text-sm text-slate-500">Loading…</p>;
  if (exports.data.length === 0) return <p className="text-sm text-slate-600">No exports yet.</p>;
  return (
    <DataTable
      data={exports.data}
      columns={columns}
      getRowId={(run) => run.id}
      rowAttributes={(run) => ({ className: "align-top", "data-testid": "export-row", "data-run-id": run.id, "data-status": run.status })}
    />
  );
}
