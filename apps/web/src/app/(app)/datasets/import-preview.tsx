"use client";

import type { RouterOutputs } from "@stepwiser/api";

type Preview = RouterOutputs["import"]["preview"];
type PreviewSolution = NonNullable<Preview["rows"][number]["solution"]>;

function labelSummary(solution: PreviewSolution): string {
  const { ratings, hard, soft } = solution.labels;
  const parts = [ratings > 0 && `${ratings} rated`, hard > 0 && `${hard} hard`, soft > 0 && `${soft} soft`].filter(Boolean);
  const labels = parts.length > 0 ? parts.join(", ") : "none";
  const firstError = solution.firstErrorIndex === null ? "" : solution.firstErrorIndex === -1 ? " · no error" : ` · first error: step ${solution.firstErrorIndex}`;
  return `${labels}${firstError}`;
}

/** The first records as the import would read them; a bad record shows the error that would stop the import. */
export function ImportPreview({ preview }: { preview: Preview }) {
  const errors = preview.rows.filter((r) => r.error !== null).length;
  return (
    <section aria-label="Import preview" className="space-y-2">
      <p className="text-sm text-slate-700">
        First {preview.rows.length} record{preview.rows.length === 1 ? "" : "s"} of {preview.fileName}
        {errors > 0 ? (
          <span className="text-red-700">
            {" "}
            · {errors} with errors: the import stops at the first bad record, so fix the file first
          </span>
        ) : (
          " · all readable"
        )}
      </p>
      <div className="max-h-[32rem] overflow-auto rounded border border-slate-200">
        <table className="w-full border-collapse text-xs">
          <thead className="sticky top-0 bg-slate-100 text-left text-slate-600">
            <tr>
              <th className="px-2 py-1 text-right">Line</th>
              <th className="px-2 py-1">Id</th>
              <th className="px-2 py-1">Problem</th>
              <th className="px-2 py-1">Steps</th>
              <th className="px-2 py-1">Labels</th>
            </tr>
          </thead>
          <tbody>
            {preview.rows.map((row, i) =>
              row.solution ? (
                <tr key={i} data-testid="preview-row" className="border-t border-slate-100 align-top">
                  <td className="px-2 py-1 text-right tabular-nums text-slate-500">{row.line}</td>
                  <td className="px-2 py-1 font-mono break-all">
                    {row.solution.externalId}
                    <span className="block font-sans text-slate-500">
                      {[row.solution.subset, row.solution.generator].filter(Boolean).join(" · ")}
                    </span>
                  </td>
                  <td className="max-w-sm px-2 py-1 whitespace-pre-wrap">{row.solution.problem}</td>
                  <td className="max-w-md px-2 py-1">
                    <span className="font-medium">{row.solution.steps}</span>
                    <ol className="mt-0.5 list-decimal space-y-0.5 pl-4 text-slate-600">
                      {row.solution.firstSteps.map((step, k) => (
                        <li key={k} className="whitespace-pre-wrap">
                          {step}
                        </li>
                      ))}
                    </ol>
                    {row.solution.steps > row.solution.firstSteps.length && <span className="text-slate-400">…</span>}
                  </td>
                  <td className="px-2 py-1">{labelSummary(row.solution)}</td>
                </tr>
              ) : (
                <tr key={i} data-testid="preview-error" className="border-t border-slate-100 bg-red-50 align-top">
                  <td className="px-2 py-1 text-right tabular-nums text-red-800">{row.line}</td>
                  <td colSpan={4} className="px-2 py-1 whitespace-pre-wrap text-red-800">
                    {row.error}
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
