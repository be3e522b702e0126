"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ErrorAlert } from "~/components/alert";
import { ProgressBar } from "~/components/progress-bar";
import { StatusBadge } from "~/components/status-badge";
import { errorMessage } from "~/lib/error-message";
import { formatBytes } from "~/lib/format-bytes";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { labelRuleKey } from "@stepwiser/core";

type ExportRun = RouterOutputs["export"]["list"][number];

const ACTIVE = new Set(["queued", "running"]);

function exportTitle(run: ExportRun): string {
  const spec = run.spec;
  if (!spec) return "export";
  if (spec.kind === "training-set") return `training set · ${spec.format}`;
  return spec.kind === "labels" ? "labels JSONL" : "predictions JSONL";
}

/** What an export holds: rows per split for a training set, lines for the JSONL exports. */
function ExportReport({ run }: { run: ExportRun }) {
  if (run.splits.length > 0) {
    return (
      <table className="text-xs" data-testid="export-splits">
        <thead className="text-slate-500">
          <tr>
            <th className="pr-3 text-left font-normal">split</th>
            <th className="pr-3 text-right font-normal">problems</th>
            <th className="pr-3 text-right font-normal">rows</th>
            <th className="pr-3 text-right font-normal">+ / −</th>
            <th className="text-right font-normal">filtered out</th>
          </tr>
        </thead>
        <tbody>
          {run.splits.map((s) => (
            <tr key={s.split} data-split={s.split}>
              <td className="pr-3">{s.split}</td>
              <td className="pr-3 text-right tabular-nums">{s.problems.toLocaleString()}</td>
              <td className="pr-3 text-right tabular-nums">{s.rows.toLocaleString()}</td>
              <td className="pr-3 text-right tabular-nums">
                {s.positive.toLocaleString()} / {s.negative.toLocaleString()}
              </td>
              <td className="text-right tabular-nums">{s.filteredOut.toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  const report = run.report as { chunks?: number; solutions?: number } | null;
  if (report?.chunks !== undefined) return <span>{report.chunks.toLocaleString()} chunks</span>;
  if (report?.solutions !== undefined) return <span>{report.solutions.toLocaleString()} solutions</span>;
  return <span className="text-slate-400">—</span>;
}

/** Export runs, newest first, live while any of them is going; files download through `/api/files/{id}`. */
export function ExportList() {
  const trpc = useTRPC();
  const canDownload = useCan("research.manage");
  const exports = useQuery({
    ...trpc.export.list.queryOptions({}),
    refetchInterval: (query) => (query.state.data?.some((r) => ACTIVE.has(r.status)) ? 1500 : false),
  });
  if (exports.error) return <ErrorAlert>{errorMessage(exports.error)}</ErrorAlert>;
  if (!exports.data) return <p className="text-sm text-slate-500">Loading…</p>;
  if (exports.data.length === 0) return <p className="text-sm text-slate-600">No exports yet.</p>;
  return (
    <div className="overflow-x-auto rounded-lg bg-white shadow-sm">
      <table className="w-full border-collapse text-sm">
        <thead className="bg-slate-100 text-left text-slate-600">
          <tr>
            <th className="px-3 py-2">Export</th>
            <th className="px-3 py-2">Source</th>
            <th className="px-3 py-2">Status</th>
            <th className="px-3 py-2">Contents</th>
            <th className="px-3 py-2">Files</th>
            <th className="px-3 py-2">Created</th>
          </tr>
        </thead>
        <tbody>
          {exports.data.map((run) => (
            <tr key={run.id} data-testid="export-row" data-run-id={run.id} data-status={run.status} className="border-t border-slate-100 align-top">
              <td className="px-3 py-2">
                <Link href={`/runs/${run.id}`} className="font-medium text-blue-700 hover:underline">
                  {exportTitle(run)}
                </Link>
                {run.spec?.kind === "training-set" && (
                  <span className="block text-xs text-slate-500">
                    {labelRuleKey(run.spec.labelRule)} · seed {run.spec.seed ?? 0}
                  </span>
                )}
              </td>
              <td className="px-3 py-2 text-slate-600">
                {run.source ? (
                  <>
                    <Link href={`/runs/${run.source.id}`} className="hover:underline">
                      {run.source.kind ?? "run"} run
                    </Link>
                    {run.source.dataset && <span className="block text-xs">{run.source.dataset.name}</span>}
                  </>
                ) : (
                  "—"
                )}
              </td>
              <td className="min-w-36 px-3 py-2">
                <StatusBadge status={run.status} />
                {ACTIVE.has(run.status) && (
                  <div className="mt-1">
                    <ProgressBar done={run.unitsDone} total={run.unitsTotal} label={`Export ${run.id} progress`} />
                  </div>
                )}
                {run.error && <p className="mt-1 text-xs whitespace-pre-wrap text-red-700">{run.error}</p>}
              </td>
              <td className="px-3 py-2">
                <ExportReport run={run} />
              </td>
              <td className="px-3 py-2">
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
              </td>
              <td className="px-3 py-2 text-slate-600">{run.createdAt.toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
