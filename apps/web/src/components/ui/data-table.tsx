"use client";

import { createColumnHelper, FlexRender, metaHelper, tableFeatures, useTable, type ColumnDef, type Header, type RowData } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useState, type ReactNode } from "react";
import { cardClass } from "./card";
import { cx } from "./cx";

/** What a column says about its look and its sort, beside TanStack Table's own definition. */
export interface DataColumnMeta {
  /** Right-aligns header and cells (numbers). */
  align?: "right";
  /** Classes of the column's cells (width, wrapping, font). */
  className?: string;
  /** Classes of its header cell. */
  headerClassName?: string;
  /** The server-side sort the header toggles; the table itself never reorders rows. */
  sort?: string;
}

const features = tableFeatures({ columnMeta: metaHelper<DataColumnMeta>() });
type Features = typeof features;

/** A column of any value type: columns of different value types share one array. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a column's value type sits in its cell's parameter, so `unknown` would refuse every typed accessor column (TanStack's own column arrays use `any`)
export type DataColumn<T extends RowData> = ColumnDef<Features, T, any>;

/** TanStack Table's column helper for a DataTable's rows: `const column = dataColumns<Row>()`. */
export const dataColumns = <T extends RowData>() => createColumnHelper<Features, T>();

/** Attributes a row may carry: a class, a title, and `data-*` for tests and styles. */
export type RowAttributes = { className?: string; title?: string } & { [attribute: `data-${string}`]: string | number | boolean | undefined };

export interface DataTableSort {
  by: string;
  order: "asc" | "desc";
  onSort: (sort: string) => void;
}

const BANDED = { table: "w-full border-collapse text-sm", head: "bg-slate-100 text-left text-slate-600", cell: "px-3 py-2" };

const LOOK = {
  /** A card of its own: grey header band, roomy cells. */
  card: BANDED,
  /** The same table without the card, for a card that holds it (a collapsible list). */
  plain: BANDED,
  /** Inside a card or panel: small text, no band. */
  compact: { table: "w-full border-collapse text-xs", head: "text-left text-slate-500", cell: "py-1 pr-3 last:pr-0" },
  /** Inside a card, in the card's own text size, no band. */
  inline: { table: "w-full border-collapse", head: "text-left text-slate-600", cell: "py-1 pr-3 last:pr-0" },
} as const;

export interface DataTableProps<T extends RowData> {
  data: readonly T[];
  columns: DataColumn<T>[];
  getRowId: (row: T) => string;
  look?: keyof typeof LOOK;
  rowAttributes?: (row: T) => RowAttributes;
  /** How many columns a cell spans (default 1); the cells it covers are left out. For rows of another shape (an error in place of the values). */
  cellSpan?: (row: T, columnId: string) => number;
  /** A full-width row under a row (a test result), or nothing. */
  renderDetail?: (row: T) => ReactNode;
  sort?: DataTableSort;
  /** Shown under the header when there are no rows. */
  empty?: ReactNode;
  /** Render only the rows on screen, in a box of at most 70 % of the viewport with a sticky header. */
  virtual?: { rowHeight: number };
  testId?: string;
}

/**
 * A plain list as a table, built on TanStack Table: columns say what each cell
 * shows (`dataColumns<Row>().accessor(…)`), the table renders the markup every
 * list shares. Sorting and paging stay with the caller (the server does them).
 */
export function DataTable<T extends RowData>({ data, columns, getRowId, look = "card", rowAttributes, cellSpan, renderDetail, sort, empty, virtual, testId }: DataTableProps<T>) {
  const table = useTable({ features, columns, data: data as T[], getRowId: (row) => getRowId(row) });
  const rows = table.getRowModel().rows;
  // State, not a ref: the virtualiser (a child) must render again once the box it scrolls exists.
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  const style = LOOK[look];
  const width = table.getAllLeafColumns().length;

  const renderRow = (row: (typeof rows)[number], extra?: { index: number; measure: (element: HTMLTableRowElement | null) => void }) => {
    const { className, ...attributes } = rowAttributes?.(row.original) ?? {};
    const detail = renderDetail?.(row.original);
    const cells = (
      <tr key={row.id} className={cx("border-t border-slate-100", className)} {...attributes} data-index={extra?.index} ref={extra?.measure}>
        {spannedCells(row.getAllCells(), (columnId) => cellSpan?.(row.original, columnId) ?? 1).map(({ cell, span }) => {
          const meta = cell.column.columnDef.meta;
          return (
            <td key={cell.id} colSpan={span > 1 ? span : undefined} className={cx(style.cell, meta?.align === "right" && "text-right tabular-nums", meta?.className)}>
              <FlexRender cell={cell} />
            </td>
          );
        })}
      </tr>
    );
    if (!detail) return cells;
    return [
      cells,
      <tr key={`${row.id}-detail`} className="bg-slate-50">
        <td colSpan={width} className={style.cell}>
          {detail}
        </td>
      </tr>,
    ];
  };

  const body = virtual ? <VirtualRows count={rows.length} rowHeight={virtual.rowHeight} scroller={scroller} width={width} render={(index, measure) => renderRow(rows[index]!, { index, measure })} /> : rows.map((row) => renderRow(row));

  const tableElement = (
    <table className={style.table} data-testid={testId}>
      <thead className={cx(style.head, virtual && "sticky top-0 z-10")}>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => (
              <HeaderCell key={header.id} header={header} sort={sort} className={style.cell} />
            ))}
          </tr>
        ))}
      </thead>
      <tbody>{body}</tbody>
    </table>
  );
  const emptyNote = rows.length === 0 && empty ? <p className="p-3 text-sm text-slate-500">{empty}</p> : null;

  if (look === "compact" || look === "inline") {
    return (
      <>
        {tableElement}
        {emptyNote}
      </>
    );
  }
  const scroll = virtual ? "max-h-[70vh] overflow-auto" : "overflow-x-auto";
  return (
    <div ref={setScroller} className={look === "card" ? cardClass({ padding: "none" }, scroll) : scroll}>
      {tableElement}
      {emptyNote}
    </div>
  );
}

/** The cells a row shows: each with its span, and none of those a wider cell before it covers. */
function spannedCells<C extends { column: { id: string } }>(cells: C[], spanOf: (columnId: string) => number): Array<{ cell: C; span: number }> {
  const shown: Array<{ cell: C; span: number }> = [];
  for (let i = 0; i < cells.length; ) {
    const cell = cells[i]!;
    const span = Math.max(1, Math.min(cells.length - i, Math.floor(spanOf(cell.column.id))));
    shown.push({ cell, span });
    i += span;
  }
  return shown;
}

function HeaderCell<T extends RowData>({ header, sort, className }: { header: Header<Features, T, unknown>; sort?: DataTableSort; className: string }) {
  const meta = header.column.columnDef.meta;
  const key = sort ? meta?.sort : undefined;
  const active = key !== undefined && key === sort?.by;
  return (
    <th
      scope="col"
      className={cx(className, meta?.align === "right" && "text-right", meta?.headerClassName)}
      aria-sort={active ? (sort!.order === "asc" ? "ascending" : "descending") : undefined}
    >
      {key !== undefined ? (
        <button type="button" className="whitespace-nowrap hover:text-slate-950" onClick={() => sort!.onSort(key)}>
          <FlexRender header={header} />
          <span aria-hidden className="ml-1 text-xs">
            {active ? (sort!.order === "asc" ? "▲" : "▼") : "↕"}
          </span>
        </button>
      ) : (
        <FlexRender header={header} />
      )}
    </th>
  );
}

/** The rows on screen and two spacer rows standing for the rest (hidden from assistive technology). */
function VirtualRows({ count, rowHeight, scroller, width, render }: { count: number; rowHeight: number; scroller: HTMLDivElement | null; width: number; render: (index: number, measure: (element: HTMLTableRowElement | null) => void) => ReactNode }) {
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scroller, estimateSize: () => rowHeight, overscan: 12 });
  const visible = virtualizer.getVirtualItems();
  const padTop = visible[0]?.start ?? 0;
  const padBottom = visible.length ? virtualizer.getTotalSize() - visible[visible.length - 1]!.end : 0;
  return (
    <>
      {padTop > 0 && (
        <tr aria-hidden>
          <td style={{ height: padTop }} colSpan={width} />
        </tr>
      )}
      {visible.map((item) => render(item.index, virtualizer.measureElement))}
      {padBottom > 0 && (
        <tr aria-hidden>
          <td style={{ height: padBottom }} colSpan={width} />
        </tr>
      )}
    </>
  );
}
