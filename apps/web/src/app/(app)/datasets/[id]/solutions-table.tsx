"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { describeStoredLabelRule } from "@stepwiser/core";
import Link from "next/link";
import { useMemo } from "react";
import { DataTable, dataColumns, type DataColumn } from "~/components/ui";
import type { SolutionView } from "~/lib/solution-filters";

type Solution = RouterOutputs["solution"]["list"]["items"][number];
type Sort = NonNullable<SolutionView["sort"]>;

const column = dataColumns<Solution>();

function position(index: number | null | undefined): string {
  if (index === null || index === undefined) return "—";
  return index < 0 ? "none" : `chunk ${index}`;
}

/** A column the server sorts by (`sort` is the server's sort key); the table only renders. */
const sorted = (sort: Sort, className = "whitespace-nowrap") => ({ sort, className, headerClassName: "whitespace-nowrap" });
const plain = { className: "whitespace-nowrap", headerClassName: "whitespace-nowrap" };

function solutionColumns(view: Pick<SolutionView, "annotateRunId" | "judgeRunId"> & { confidenceRuleName: string | null }, linkSuffix: string): DataColumn<Solution>[] {
  return [
    column.accessor("externalId", {
      header: "Id",
      meta: sorted("externalId"),
      cell: (info) => (
        <Link href={`/solutions/${info.row.original.id}${linkSuffix}`} className="font-mono text-blue-700 hover:underline">
          {info.getValue()}
        </Link>
      ),
    }),
    column.accessor("generator", { header: "Generator", meta: sorted("generator") }),
    column.accessor("problemPreview", { header: "Problem", meta: { className: "max-w-xl min-w-48", headerClassName: "whitespace-nowrap" }, cell: (info) => <span className="line-clamp-2 text-slate-700">{info.getValue()}</span> }),
    column.accessor("finalAnswerCorrect", { header: "Answer", meta: plain, cell: (info) => (info.getValue() === null ? "—" : info.getValue() ? "correct" : "wrong") }),
    column.accessor("sourceFirstErrorIndex", { header: "Source error", meta: sorted("sourceFirstError"), cell: (info) => position(info.getValue()) }),
    // Chunks of the chosen run's segmentation, else of the solution's first one; the column sorts only once a run is chosen (its stats are indexed, a count per solution is not).
    column.accessor("chunkCount", { header: "Chunks", meta: view.annotateRunId || view.judgeRunId ? sorted("chunkCount") : plain, cell: (info) => info.getValue() ?? "—" }),
    ...(view.annotateRunId
      ? [
          column.accessor("qMin", { header: "Lowest Q", meta: sorted("qMin"), cell: (info) => (info.getValue() === null ? "—" : info.getValue()!.toFixed(2)) }),
          column.accessor("annotateFirstNegative", { header: "MC first error", meta: sorted("annotateFirstNegative"), cell: (info) => position(info.getValue()) }),
          column.accessor("labelsDisagree", { header: "Rules", meta: plain, cell: (info) => (info.getValue() ? "disagree" : info.getValue() === false ? "agree" : "—") }),
        ]
      : []),
    ...(view.annotateRunId && view.confidenceRuleName
      ? [
          column.accessor("lowestConfidence", {
            header: "Lowest confidence",
            meta: sorted("lowestConfidence"),
            cell: (info) => {
              const value = info.getValue();
              return value === null ? (
                "—"
              ) : (
                <span data-testid="lowest-confidence" data-value={value} title={`lowest label confidence under ${view.confidenceRuleName}: ${value}`}>
                  {value.toFixed(2)}
                </span>
              );
            },
          }),
        ]
      : []),
    ...(view.judgeRunId ? [column.accessor("judgeFirstNegative", { header: "Judge first error", meta: sorted("judgeFirstNegative"), cell: (info) => position(info.getValue()) })] : []),
  ];
}

const ROW_ESTIMATE_PX = 52;

/**
 * One page of solutions (up to a few hundred rows) in a scrolling table whose
 * rows are virtualised: only what is on screen is in the DOM. The server
 * filters and sorts; a sortable header asks it for another order.
 */
export function SolutionsTable({ items, view, linkSuffix, onSort }: { items: Solution[]; view: SolutionView; linkSuffix: string; onSort: (sort: Sort) => void }) {
  const { annotateRunId, judgeRunId, confidenceRule } = view;
  const confidenceRuleName = confidenceRule ? describeStoredLabelRule(confidenceRule.rule, confidenceRule.paramsKey) : null;
  const columns = useMemo(() => solutionColumns({ annotateRunId, judgeRunId, confidenceRuleName }, linkSuffix), [annotateRunId, judgeRunId, confidenceRuleName, linkSuffix]);
  return (
    <DataTable
      data={items}
      columns={columns}
      getRowId={(s) => s.id}
      rowAttributes={() => ({ className: "align-top" })}
      sort={{ by: view.sort ?? "position", order: view.order ?? "asc", onSort: (sort) => onSort(sort as Sort) }}
      virtual={{ rowHeight: ROW_ESTIMATE_PX }}
      empty="No solution matches these filters."
    />
  );
}
