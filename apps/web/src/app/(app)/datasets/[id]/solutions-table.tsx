"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { createColumnHelper, FlexRender, tableFeatures, useTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useMemo, useRef } from "react";
import type { TrajectoryView } from "~/lib/trajectory-filters";

type Solution = RouterOutputs["trajectory"]["list"]["items"][number];
type Sort = NonNullable<TrajectoryView["sort"]>;

const features = tableFeatures({});
const column = createColumnHelper<typeof features, Solution>();

function position(index: number | null | undefined): string {
  if (index === null || index === undefined) return "—";
  return index < 0 ? "none" : `chunk ${index}`;
}

/** Column id → the server sort it stands for; the server sorts, the table only renders. */
const SORT_OF: Partial<Record<string, Sort>> = {
  externalId: "externalId",
  generator: "generator",
  sourceFirstErrorIndex: "sourceFirstError",
  chunkCount: "chunkCount",
  qMin: "qMin",
  annotateFirstNegative: "annotateFirstNegative",
  judgeFirstNegative: "judgeFirstNegative",
};

const ROW_ESTIMATE_PX = 52;

/**
 * One page of solutions (up to a few hundred rows) in a scrolling table whose
 * rows are virtualised: only what is on screen is in the DOM.
 */
export function SolutionsTable({ items, view, linkSuffix, onSort }: { items: Solution[]; view: TrajectoryView; linkSuffix: string; onSort: (sort: Sort) => void }) {
  const columns = useMemo(
    () =>
      column.columns([
        column.accessor("externalId", {
          header: "Id",
          cell: (info) => (
            <Link href={`/trajectories/${info.row.original.id}${linkSuffix}`} className="font-mono text-blue-700 hover:underline">
              {info.getValue()}
            </Link>
          ),
        }),
        column.accessor("generator", { header: "Generator" }),
        column.accessor("problemPreview", { header: "Problem", cell: (info) => <span className="line-clamp-2 text-slate-700">{info.getValue()}</span> }),
        column.accessor("finalAnswerCorrect", { header: "Answer", cell: (info) => (info.getValue() === null ? "—" : info.getValue() ? "correct" : "wrong") }),
        column.accessor("sourceFirstErrorIndex", { header: "Source error", cell: (info) => position(info.getValue()) }),
        column.accessor("chunkCount", { header: "Chunks", cell: (info) => info.getValue() ?? "—" }),
        ...(view.annotateRunId
          ? [
              column.accessor("qMin", { header: "Lowest Q", cell: (info) => (info.getValue() === null ? "—" : info.getValue()!.toFixed(2)) }),
              column.accessor("annotateFirstNegative", { header: "MC first error", cell: (info) => position(info.getValue()) }),
              column.accessor("labelsDisagree", { header: "Rules", cell: (info) => (info.getValue() ? "disagree" : info.getValue() === false ? "agree" : "—") }),
            ]
          : []),
        ...(view.judgeRunId ? [column.accessor("judgeFirstNegative", { header: "Judge first error", cell: (info) => position(info.getValue()) })] : []),
      ]),
    [linkSuffix, view.annotateRunId, view.judgeRunId],
  );
  const table = useTable({ features, columns, data: items });
  const rows = table.getRowModel().rows;

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: 12,
  });
  const visible = virtualizer.getVirtualItems();
  const padTop = visible[0]?.start ?? 0;
  const padBottom = visible.length ? virtualizer.getTotalSize() - visible[visible.length - 1]!.end : 0;
  const sort = view.sort ?? "position";
  const order = view.order ?? "asc";

  return (
    <div ref={scroller} className="max-h-[70vh] overflow-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full border-collapse text-sm">
        <thead className="sticky top-0 z-10 bg-slate-100 text-left text-slate-600">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sortKey = SORT_OF[header.column.id];
                const active = sortKey !== undefined && sortKey === sort;
                return (
                  <th key={header.id} scope="col" className="px-3 py-2 font-medium whitespace-nowrap" aria-sort={active ? (order === "asc" ? "ascending" : "descending") : undefined}>
                    {sortKey ? (
                      <button type="button" className="hover:text-slate-950" onClick={() => onSort(sortKey)}>
                        <FlexRender header={header} />
                        <span aria-hidden className="ml-1 text-xs">
                          {active ? (order === "asc" ? "▲" : "▼") : "↕"}
                        </span>
                      </button>
                    ) : (
                      <FlexRender header={header} />
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden>
              <td style={{ height: padTop }} colSpan={columns.length} />
            </tr>
          )}
          {visible.map((item) => {
            const row = rows[item.index]!;
            return (
              <tr key={row.id} data-index={item.index} ref={virtualizer.measureElement} className="border-t border-slate-100 align-top">
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className={`px-3 py-2 ${cell.column.id === "problemPreview" ? "max-w-xl min-w-48" : "whitespace-nowrap"}`}>
                    <FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden>
              <td style={{ height: padBottom }} colSpan={columns.length} />
            </tr>
          )}
        </tbody>
      </table>
      {rows.length === 0 && <p className="p-4 text-sm text-slate-500">No solution matches these filters.</p>}
    </div>
  );
}
