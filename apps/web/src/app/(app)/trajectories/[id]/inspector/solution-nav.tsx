"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { readTrajectoryView, viewSearchParams } from "~/lib/trajectory-filters";
import { useTRPC } from "~/trpc/react";

/**
 * Previous / next solution in the list the inspector was opened from: the
 * list's filters ride along in the URL, and n / p step through them.
 */
export function SolutionNav({ datasetId, id, datasetName }: { datasetId: string; id: string; datasetName: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const view = readTrajectoryView(params);
  const query = viewSearchParams(params).toString();
  const suffix = query ? `?${query}` : "";
  const around = useQuery(trpc.trajectory.neighbors.queryOptions({ datasetId, id, ...view }));
  const previous = around.data?.previous;
  const next = around.data?.next;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target;
      if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      const to = event.key === "n" ? next : event.key === "p" ? previous : null;
      if (to) router.push(`/trajectories/${to.id}${suffix}`);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [next, previous, router, suffix]);

  return (
    <nav aria-label="Solutions in this list" className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
      <Link href={`/datasets/${datasetId}${suffix}`} className="text-blue-700 hover:underline">
        ← {datasetName}
        {query ? " (filtered list)" : ""}
      </Link>
      <span className="ml-auto flex gap-3">
        {around.data && !around.data.inList ? (
          <span className="text-slate-400">not in the list's filters</span>
        ) : previous ? (
          <Link href={`/trajectories/${previous.id}${suffix}`} className="text-blue-700 hover:underline" title="p">
            ‹ {previous.externalId}
          </Link>
        ) : (
          <span className="text-slate-400">first in list</span>
        )}
        {around.data && !around.data.inList ? null : next ? (
          <Link href={`/trajectories/${next.id}${suffix}`} className="text-blue-700 hover:underline" title="n">
            {next.externalId} ›
          </Link>
        ) : (
          <span className="text-slate-400">last in list</span>
        )}
      </span>
    </nav>
  );
}
