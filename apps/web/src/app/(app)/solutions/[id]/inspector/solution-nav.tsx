"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { readSolutionView, viewSearchParams } from "~/lib/solution-filters";
import { useTRPC } from "~/trpc/react";

/**
 * Previous / next solution in the list the inspector was opened from: the
 * list's filters ride along in the URL. `go` opens a neighbour (the page binds
 * it to n / p).
 */
export function useSolutionNeighbors(datasetId: string | undefined, id: string) {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const view = readSolutionView(params);
  const query = viewSearchParams(params).toString();
  const suffix = query ? `?${query}` : "";
  const around = useQuery({ ...trpc.solution.neighbors.queryOptions({ datasetId: datasetId ?? "", id, ...view }), enabled: datasetId !== undefined });
  const inList = around.data?.inList ?? true;
  const previous = inList ? around.data?.previous : undefined;
  const next = inList ? around.data?.next : undefined;
  return {
    /** Whether this solution passes the list's filters (true until known). */
    inList,
    previous,
    next,
    /** The list's view as a query string ("" or "?…"), kept on every link. */
    suffix,
    go: (to: { id: string } | null | undefined) => {
      if (to) router.push(`/solutions/${to.id}${suffix}`);
    },
  };
}

export type SolutionNeighbors = ReturnType<typeof useSolutionNeighbors>;

export function SolutionNav({ datasetId, datasetName, neighbors }: { datasetId: string; datasetName: string; neighbors: SolutionNeighbors }) {
  const { inList, previous, next, suffix } = neighbors;
  return (
    <nav aria-label="Solutions in this list" className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
      <Link href={`/datasets/${datasetId}${suffix}`} className="text-blue-700 hover:underline">
        ← {datasetName}
        {suffix ? " (filtered list)" : ""}
      </Link>
      <span className="ml-auto flex gap-3">
        {!inList ? (
          <span className="text-slate-400">not in the list&apos;s filters</span>
        ) : previous ? (
          <Link href={`/solutions/${previous.id}${suffix}`} className="text-blue-700 hover:underline" title="p">
            ‹ {previous.externalId}
          </Link>
        ) : (
          <span className="text-slate-400">first in list</span>
        )}
        {!inList ? null : next ? (
          <Link href={`/solutions/${next.id}${suffix}`} className="text-blue-700 hover:underline" title="n">
            {next.externalId} ›
          </Link>
        ) : (
          <span className="text-slate-400">last in list</span>
        )}
      </span>
    </nav>
  );
}
