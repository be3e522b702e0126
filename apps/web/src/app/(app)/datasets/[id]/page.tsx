"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Button, ErrorAlert, Pager } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { readSolutionView, viewSearchParams, type SolutionView } from "~/lib/solution-filters";
import { useSearchParamsState } from "~/lib/url-state";
import { useTRPC } from "~/trpc/react";
import { FilterBar } from "./filter-bar";
import { SolutionsTable } from "./solutions-table";

const PAGE_SIZE = 200;

/** Filters, sort and page live in the URL so a view can be shared and survives a reload. */
function useView() {
  const { params, update: updateParams } = useSearchParamsState();
  const view = readSolutionView(params);
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  // A new filter starts at page 1.
  const update = (changes: Record<string, string | undefined>) => updateParams("page" in changes ? changes : { ...changes, page: undefined });
  const query = viewSearchParams(params).toString();
  return { view, page, update, linkSuffix: query ? `?${query}` : "" };
}

export default function DatasetSolutionsPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const { view, page, update, linkSuffix } = useView();
  const canCreateQueue = useCan("annotationQueues.manage");
  const dataset = useQuery(trpc.dataset.get.queryOptions({ id }));
  const runs = useQuery(trpc.run.list.queryOptions({ datasetId: id, kinds: ["annotate", "judge", "benchmark"], pageSize: 200 }));
  // The chosen annotate run's label rules (those it stored labels for), offered for the confidence filter.
  const candidates = useQuery({ ...trpc.compare.candidates.queryOptions({ datasetId: id }), enabled: view.annotateRunId !== undefined });
  const labelRules = candidates.data?.annotateRuns.find((r) => r.id === view.annotateRunId)?.rules ?? [];
  const solutions = useQuery({
    ...trpc.solution.list.queryOptions({ datasetId: id, ...view, page, pageSize: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });

  const onSort = (sort: NonNullable<SolutionView["sort"]>) => {
    const same = (view.sort ?? "position") === sort;
    update({ sort, order: same && (view.order ?? "asc") === "asc" ? "desc" : "asc" });
  };

  if (!dataset.data) return dataset.error ? <ErrorAlert>{errorMessage(dataset.error)}</ErrorAlert> : <p className="text-sm text-slate-500">Loading…</p>;
  const list = solutions.data;
  return (
    <div className="space-y-3">
      <FilterBar dataset={dataset.data} runs={runs.data?.runs ?? []} labelRules={labelRules} view={view} update={update} />
      {solutions.error && <ErrorAlert>{errorMessage(solutions.error)}</ErrorAlert>}
      {!list && !solutions.error && <p className="text-sm text-slate-500">Loading solutions…</p>}
      {list && (
        <>
          <div className="flex flex-wrap items-center gap-3 text-sm">
            <span className="text-slate-600" aria-live="polite">
              {list.total.toLocaleString()}
              {list.totalIsExact ? "" : "+"} matching{solutions.isFetching ? " · updating…" : ""}
            </span>
            {linkSuffix && (
              <Button variant="link" onClick={() => update(Object.fromEntries([...new URLSearchParams(linkSuffix.slice(1)).keys()].map((k) => [k, undefined])))}>
                Clear filters
              </Button>
            )}
            {canCreateQueue && list.total > 0 && (
              <Link href={`/annotation-queues/new?dataset=${encodeURIComponent(id)}${linkSuffix ? `&${linkSuffix.slice(1)}` : ""}`} className="text-blue-700 hover:underline">
                Audit this list in an annotation queue
              </Link>
            )}
            <Pager page={list.page} pageCount={list.pageCount} hasNext={list.hasMore} onPage={(to) => update({ page: String(to) })} />
          </div>
          <SolutionsTable items={list.items} view={view} linkSuffix={linkSuffix} onSort={onSort} />
        </>
      )}
    </div>
  );
}
