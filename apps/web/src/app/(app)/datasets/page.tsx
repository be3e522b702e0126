"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ErrorAlert } from "~/components/alert";
import { StatusBadge } from "~/components/status-badge";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { ImportPanel } from "./import-panel";
import { RecentImports } from "./recent-imports";

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
      {datasets.data && datasets.data.length > 0 && (
        <div className="overflow-x-auto rounded-lg bg-white shadow-sm">
          <table className="w-full border-collapse text-sm">
            <thead className="bg-slate-100 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2">Name</th>
                <th className="px-3 py-2">Source</th>
                <th className="px-3 py-2 text-right">Solutions</th>
                <th className="px-3 py-2 text-right">Problems</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2">Imported</th>
              </tr>
            </thead>
            <tbody>
              {datasets.data.map((d) => (
                <tr key={d.id} className="border-t border-slate-100">
                  <td className="px-3 py-2">
                    <Link href={`/datasets/${d.id}`} className="font-medium text-blue-700 hover:underline">
                      {d.name}
                    </Link>
                  </td>
                  <td className="px-3 py-2 text-slate-600">
                    {d.source}
                    {d.license ? ` · ${d.license}` : ""}
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums">{d.trajectoryCount}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{d.problemCount}</td>
                  <td className="px-3 py-2">
                    {d.importRunId ? (
                      <Link href={`/runs/${d.importRunId}`} title="Open the import run">
                        <StatusBadge status={d.status} />
                      </Link>
                    ) : (
                      <StatusBadge status={d.status} />
                    )}
                  </td>
                  <td className="px-3 py-2 text-slate-600">{d.createdAt.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <RecentImports />
    </div>
  );
}
