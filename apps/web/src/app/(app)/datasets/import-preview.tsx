"use client";

import type { RouterOutputs } from "@stepwiser/api";
import type { ImportFormat } from "@stepwiser/core";
import { useMemo } from "react";
import { DataTable, dataColumns, type DataColumn } from "~/components/ui";
import { recordPositionName } from "./import-formats";

type Preview = RouterOutputs["import"]["preview"];
type PreviewSolution = NonNullable<Preview["rows"][number]["solution"]>;

function labelSummary(solution: PreviewSolution): string {
  const { ratings, hard, soft } = solution.labels;
  const parts = [ratings > 0 && `${ratings} rated`, hard > 0 && `${hard} hard`, soft > 0 && `${soft} soft`].filter(Boolean);
  const labels = parts.length > 0 ? parts.join(", ") : "none";
  const firstError = solution.firstErrorIndex === null ? "" : solution.firstErrorIndex === -1 ? " · no error" : ` · first error: step ${solution.firstErrorIndex}`;
  return `${labels}${firstError}`;
}

type PreviewRow = Preview["rows"][number] & { key: string };

/**
 * The record's id, subset and generator, and the quirks its reader accepted; for a record that does not read,
 * the error, and for one with nothing to import, why it is ignored (spanning the record's columns).
 */
function RecordCell({ row }: { row: PreviewRow }) {
  if (!row.solution) return <span className="whitespace-pre-wrap">{row.error ?? `Ignored: ${row.ignored ?? ""}`}</span>;
  return (
    <>
      <span className="font-mono">{row.solution.externalId}</span>
      <span className="block text-slate-500">{[row.solution.subset, row.solution.generator].filter(Boolean).join(" · ")}</span>
      {row.quirks.map((quirk) => (
        <span key={quirk} className="mt-0.5 block text-xs text-amber-800" data-testid="preview-quirk">
          {quirk}
        </span>
      ))}
    </>
  );
}

function rowAttributesOf(row: PreviewRow): Record<string, string> {
  if (row.solution) return { className: "align-top", "data-testid": "preview-row" };
  if (row.error === null) return { className: "bg-slate-50 align-top text-slate-600", "data-testid": "preview-ignored" };
  return { className: "bg-red-50 align-top text-red-800", "data-testid": "preview-error" };
}

function StepsCell({ solution }: { solution: PreviewSolution }) {
  return (
    <>
      <span className="font-medium">{solution.steps}</span>
      <ol className="mt-0.5 list-decimal space-y-0.5 pl-4 text-slate-600">
        {solution.firstSteps.map((step, k) => (
          <li key={k} className="whitespace-pre-wrap">
            {step}
          </li>
        ))}
      </ol>
      {solution.steps > solution.firstSteps.length && <span className="text-slate-400">…</span>}
    </>
  );
}

const column = dataColumns<PreviewRow>();
/** The preview's columns; the first names the record's position: its line, or its row in a Parquet file. */
const columnsFor = (positionName: string): DataColumn<PreviewRow>[] => [
  column.accessor("line", { header: positionName, meta: { align: "right", className: "text-slate-500" } }),
  column.display({ id: "id", header: "Id", meta: { className: "break-all" }, cell: ({ row }) => <RecordCell row={row.original} /> }),
  column.display({ id: "problem", header: "Problem", meta: { className: "max-w-sm whitespace-pre-wrap" }, cell: ({ row }) => row.original.solution?.problem }),
  column.display({ id: "steps", header: "Steps", meta: { className: "max-w-md" }, cell: ({ row }) => row.original.solution && <StepsCell solution={row.original.solution} /> }),
  column.display({ id: "labels", header: "Labels", cell: ({ row }) => row.original.solution && labelSummary(row.original.solution) }),
];

/** The first records as the import would read them; a bad record shows the error that would stop the import. */
export function ImportPreview({ preview, format }: { preview: Preview; format: ImportFormat }) {
  const positionName = recordPositionName(format);
  const columns = useMemo(() => columnsFor(positionName), [positionName]);
  const errors = preview.rows.filter((r) => r.error !== null).length;
  return (
    <section aria-label="Import preview" className="space-y-2">
      <p className="text-sm text-slate-700">
        First {preview.rows.length} record{preview.rows.length === 1 ? "" : "s"} of {preview.fileName}
        {errors > 0 ? (
          <span className="text-red-700">
            {" "}
            · {errors} with errors: the import fails at the first bad record unless invalid records are skipped and reported
          </span>
        ) : (
          " · all readable"
        )}
      </p>
      <div className="max-h-[32rem] overflow-auto rounded border border-slate-200">
        <DataTable
          look="compact"
          data={preview.rows.map((row, i) => ({ ...row, key: String(i) }))}
          columns={columns}
          getRowId={(row) => row.key}
          rowAttributes={rowAttributesOf}
          // A record that does not read (or holds nothing to import) says why across the record's columns.
          cellSpan={(row, columnId) => (!row.solution && columnId === "id" ? 4 : 1)}
        />
      </div>
    </section>
  );
}
