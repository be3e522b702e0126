"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, usePathname, useRouter, useSearchParams } from "next/navigation";
import { ErrorAlert } from "~/components/alert";
import { StatusBadge } from "~/components/status-badge";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

const PAGE_SIZE = 50;

/** Filters live in the URL so a filtered view can be shared and survives a reload. */
function useFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const hasErrorParam = params.get("hasError");
  const filters = {
    subset: params.get("subset") || undefined,
    generator: params.get("generator") || undefined,
    hasError: hasErrorParam === "true" ? true : hasErrorParam === "false" ? false : undefined,
    page: Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1),
  };
  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params.toString());
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    if (!("page" in changes)) next.delete("page"); // a new filter starts at page 1
    const query = next.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return { filters, update };
}

function firstErrorText(index: number | null): string {
  if (index === null) return "unknown";
  return index < 0 ? "none" : `step ${index}`;
}

export default function DatasetPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const { filters, update } = useFilters();
  const dataset = useQuery(trpc.dataset.get.queryOptions({ id }));
  const trajectories = useQuery({
    ...trpc.trajectory.list.queryOptions({ datasetId: id, ...filters, pageSize: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });

  if (dataset.error) return <ErrorAlert>{errorMessage(dataset.error)}</ErrorAlert>;
  if (!dataset.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const d = dataset.data;
  const list = trajectories.data;

  return (
    <div className="space-y-5">
      <div>
        <Link href="/datasets" className="text-sm text-blue-700 hover:underline">
          ← Datasets
        </Link>
        <div className="mt-1 flex items-center gap-3">
          <h1 className="text-xl font-semibold">{d.name}</h1>
          <StatusBadge status={d.status} />
        </div>
        <p className="text-sm text-slate-600">
          {d.trajectoryCount} solutions · {d.withErrorCount} with a labelled first error · {d.source}
          {d.license ? ` · ${d.license}` : ""}
        </p>
      </div>

      <div className="flex flex-wrap items-end gap-4 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm">
        <label>
          <span className="block text-slate-600">Subset</span>
          <select
            className="mt-1 rounded border border-slate-300 px-2 py-1"
            value={filters.subset ?? ""}
            onChange={(e) => update({ subset: e.target.value || undefined })}
          >
            <option value="">All</option>
            {d.subsets.map((s) =>
              s.name === null ? null : (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.count})
                </option>
              ),
            )}
          </select>
        </label>
        <label>
          <span className="block text-slate-600">Generator</span>
          <select
            className="mt-1 rounded border border-slate-300 px-2 py-1"
            value={filters.generator ?? ""}
            onChange={(e) => update({ generator: e.target.value || undefined })}
          >
            <option value="">All</option>
            {d.generators.map((g) => (
              <option key={g.name} value={g.name}>
                {g.name} ({g.count})
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="block text-slate-600">First error</span>
          <select
            className="mt-1 rounded border border-slate-300 px-2 py-1"
            value={filters.hasError === undefined ? "" : String(filters.hasError)}
            onChange={(e) => update({ hasError: e.target.value || undefined })}
          >
            <option value="">Any</option>
            <option value="true">Has an error</option>
            <option value="false">Error-free</option>
          </select>
        </label>
        {list && <span className="ml-auto text-slate-600">{list.total} matching</span>}
      </div>

      {trajectories.error && <ErrorAlert>{errorMessage(trajectories.error)}</ErrorAlert>}
      {list && (
        <>
          <table className="w-full border-collapse rounded-lg bg-white text-sm shadow-sm">
            <thead className="bg-slate-100 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2">Id</th>
                <th className="px-3 py-2">Generator</th>
                <th className="px-3 py-2">Problem</th>
                <th className="px-3 py-2">Answer</th>
                <th className="px-3 py-2">First error</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((t) => (
                <tr key={t.id} className="border-t border-slate-100 align-top">
                  <td className="px-3 py-2 font-mono whitespace-nowrap">
                    <Link href={`/trajectories/${t.id}`} className="text-blue-700 hover:underline">
                      {t.externalId}
                    </Link>
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap text-slate-600">{t.generator}</td>
                  <td className="max-w-xl px-3 py-2 text-slate-700">
                    <span className="line-clamp-2">{t.problemPreview}</span>
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">
                    {t.finalAnswerCorrect === null ? "—" : t.finalAnswerCorrect ? "correct" : "wrong"}
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">{firstErrorText(t.sourceFirstErrorIndex)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Pages" className="flex items-center gap-3 text-sm">
            <button
              type="button"
              disabled={list.page <= 1}
              onClick={() => update({ page: String(list.page - 1) })}
              className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40"
            >
              Previous
            </button>
            <span className="tabular-nums">
              Page {list.page} of {list.pageCount}
            </span>
            <button
              type="button"
              disabled={list.page >= list.pageCount}
              onClick={() => update({ page: String(list.page + 1) })}
              className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40"
            >
              Next
            </button>
          </nav>
        </>
      )}
    </div>
  );
}
