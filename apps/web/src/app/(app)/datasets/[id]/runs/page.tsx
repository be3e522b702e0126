"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ErrorAlert, ProgressBar, StatusBadge } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

const ACTIVE = new Set(["queued", "running"]);

/** Every run over this dataset, newest first, live while any is going. */
export default function DatasetRunsPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const canLaunch = useCan("research.manage");
  const runs = useQuery({
    ...trpc.run.list.queryOptions({ datasetId: id, limit: 200 }),
    refetchInterval: (query) => (query.state.data?.some((r) => ACTIVE.has(r.status)) ? 2000 : false),
  });

  return (
    <div className="space-y-3">
      <div className="flex items-center gap-3">
        <h2 className="text-base font-semibold">Run history</h2>
        {canLaunch && (
          <Link href={`/runs/new?datasetId=${encodeURIComponent(id)}`} className="ml-auto rounded bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700">
            Launch a run
          </Link>
        )}
      </div>
      {runs.error && <ErrorAlert>{errorMessage(runs.error)}</ErrorAlert>}
      {!runs.data && !runs.error && <p className="text-sm text-slate-500">Loading…</p>}
      {runs.data?.length === 0 && <p className="text-sm text-slate-500">No run over this dataset yet.</p>}
      {runs.data && runs.data.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="w-full border-collapse text-sm">
            <thead className="bg-slate-100 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2 font-medium">Run</th>
                <th className="px-3 py-2 font-medium">Kind</th>
                <th className="px-3 py-2 font-medium">Status</th>
                <th className="w-48 px-3 py-2 font-medium">Progress</th>
                <th className="px-3 py-2 font-medium">Tokens</th>
                <th className="px-3 py-2 font-medium">Created</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((run) => (
                <tr key={run.id} className="border-t border-slate-100">
                  <td className="px-3 py-2 font-mono">
                    <Link href={`/runs/${run.id}`} className="text-blue-700 hover:underline">
                      {run.id.slice(-8)}
                    </Link>
                  </td>
                  <td className="px-3 py-2">{run.kind.replaceAll("_", "-")}</td>
                  <td className="px-3 py-2">
                    <StatusBadge status={run.status} />
                  </td>
                  <td className="px-3 py-2">
                    <ProgressBar done={run.unitsDone} total={run.unitsTotal} label={`Run ${run.id} progress`} />
                    <span className="text-xs text-slate-500 tabular-nums">
                      {run.unitsDone}/{run.unitsTotal}
                      {run.unitsFailed > 0 ? ` · ${run.unitsFailed} failed` : ""}
                    </span>
                  </td>
                  <td className="px-3 py-2 tabular-nums">{run.completionTokens.toLocaleString()}</td>
                  <td className="px-3 py-2 whitespace-nowrap text-slate-600">{run.createdAt.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
