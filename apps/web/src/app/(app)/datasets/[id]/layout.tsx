"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { ErrorAlert, StatusBadge } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

const TABS = [
  { label: "Solutions", suffix: "" },
  { label: "Overview", suffix: "/overview" },
  { label: "Runs", suffix: "/runs" },
] as const;

/** The dataset's heading and its tabs, shared by the solutions list, the overview plots and the run history. */
export default function DatasetLayout({ children }: { children: ReactNode }) {
  const { id } = useParams<{ id: string }>();
  const pathname = usePathname();
  const trpc = useTRPC();
  const dataset = useQuery(trpc.dataset.get.queryOptions({ id }));
  const base = `/datasets/${id}`;

  if (dataset.error) return <ErrorAlert>{errorMessage(dataset.error)}</ErrorAlert>;
  const d = dataset.data;
  return (
    <div className="space-y-5">
      <div>
        <Link href="/datasets" className="text-sm text-blue-700 hover:underline">
          ← Datasets
        </Link>
        {d ? (
          <>
            <div className="mt-1 flex flex-wrap items-center gap-3">
              <h1 className="text-xl font-semibold break-all">{d.name}</h1>
              <StatusBadge status={d.status} />
            </div>
            <p className="text-sm text-slate-600">
              {d.solutionCount} solutions · {d.withErrorCount} with a labelled first error · {d.source}
              {d.license ? ` · ${d.license}` : ""}
            </p>
          </>
        ) : (
          <p className="mt-1 text-sm text-slate-500">Loading…</p>
        )}
      </div>
      <nav aria-label="Dataset sections" className="flex gap-1 border-b border-slate-200 text-sm">
        {TABS.map((tab) => {
          const href = `${base}${tab.suffix}`;
          const active = tab.suffix === "" ? pathname === base : pathname.startsWith(href);
          return (
            <Link
              key={tab.label}
              href={href}
              aria-current={active ? "page" : undefined}
              className={`-mb-px border-b-2 px-3 py-2 ${active ? "border-blue-600 font-medium text-slate-900" : "border-transparent text-slate-600 hover:text-slate-900"}`}
            >
              {tab.label}
            </Link>
          );
        })}
      </nav>
      {children}
    </div>
  );
}
