"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ErrorAlert } from "~/components/alert";
import { ProgressBar } from "~/components/progress-bar";
import { StatusBadge } from "~/components/status-badge";
import { errorMessage } from "~/lib/error-message";
import { formatBytes } from "~/lib/format-bytes";
import { useTRPC } from "~/trpc/react";
import { importSummaryText } from "./import-run-status";

const ACTIVE = new Set(["queued", "running"]);

/** The latest import runs: which file, which format, how far, and what each wrote. */
export function RecentImports() {
  const trpc = useTRPC();
  const imports = useQuery({
    ...trpc.import.list.queryOptions({ limit: 10 }),
    refetchInterval: (query) => (query.state.data?.some((r) => ACTIVE.has(r.status)) ? 2000 : false),
  });
  if (imports.error) return <ErrorAlert>{errorMessage(imports.error)}</ErrorAlert>;
  if (!imports.data || imports.data.length === 0) return null;
  return (
    <details className="rounded-lg bg-white shadow-sm">
      <summary className="cursor-pointer px-3 py-2 text-sm font-medium text-slate-700">Recent imports</summary>
      <div className="overflow-x-auto">
        <table className="w-full border-collapse text-sm">
          <thead className="bg-slate-100 text-left text-slate-600">
            <tr>
              <th className="px-3 py-2">File</th>
              <th className="px-3 py-2">Format</th>
              <th className="px-3 py-2">Status</th>
              <th className="px-3 py-2">Result</th>
              <th className="px-3 py-2">Dataset</th>
              <th className="px-3 py-2">Started</th>
            </tr>
          </thead>
          <tbody>
            {imports.data.map((r) => (
              <tr key={r.id} data-testid="import-row" className="border-t border-slate-100 align-top">
                <td className="px-3 py-2 break-all">
                  {r.fileName ?? "—"}
                  {r.sizeBytes !== null && <span className="block text-xs text-slate-500">{formatBytes(r.sizeBytes)}</span>}
                </td>
                <td className="px-3 py-2 text-slate-600">{r.format ?? "—"}</td>
                <td className="px-3 py-2">
                  <Link href={`/runs/${r.id}`} title="Open the import run">
                    <StatusBadge status={r.status} />
                  </Link>
                </td>
                <td className="min-w-48 px-3 py-2 text-slate-700">
                  {ACTIVE.has(r.status) ? (
                    <ProgressBar done={r.unitsDone} total={r.unitsTotal} label={`Import of ${r.fileName ?? r.id}`} />
                  ) : r.error ? (
                    <span className="text-red-700">{r.error}</span>
                  ) : r.summary ? (
                    importSummaryText(r.summary)
                  ) : (
                    "—"
                  )}
                </td>
                <td className="px-3 py-2">
                  {r.dataset ? (
                    <Link href={`/datasets/${r.dataset.id}`} className="text-blue-700 hover:underline">
                      {r.dataset.name}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td className="px-3 py-2 text-slate-600">{r.createdAt.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
