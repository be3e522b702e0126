"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card, CardHeader, DataTable, dataColumns, ErrorAlert, Notice, Pager, pageCountOf, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { Facts, ResultTable } from "../results/result-parts";
import { entryRows, hasReport, quirkRows, reasonRows, refusalText, REPORT_PAGE_SIZE, reportCountFacts, reportDownloadHref, type EntryRow } from "./report-view";

const column = dataColumns<EntryRow>();
const columns: DataColumn<EntryRow>[] = [
  column.accessor("line", { header: "Line", meta: { align: "right", className: "w-16" } }),
  column.accessor("record", { header: "Record", meta: { align: "right", className: "w-20" } }),
  column.accessor("field", { header: "Field", meta: { className: "font-mono text-xs [overflow-wrap:anywhere]" } }),
  // The reason may quote the file's bytes: rendered as text, never as markup.
  column.accessor("reason", { header: "Reason", meta: { className: "[overflow-wrap:anywhere]" } }),
  column.accessor("kind", { header: "Kind", meta: { className: "text-slate-600" } }),
];

/**
 * The Report section of an import run: its records by what became of them,
 * counts by reason and by quirk, the records left out or ignored (paged), and
 * the whole report as JSON Lines. Nothing for imports stored before reports.
 */
export function ImportReport({ runId, active }: { runId: string; active: boolean }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const report = useQuery({
    ...trpc.import.report.queryOptions({ runId, page, pageSize: REPORT_PAGE_SIZE }),
    placeholderData: keepPreviousData,
    refetchInterval: active ? 3000 : false,
  });
  if (report.error) return <ErrorAlert>{errorMessage(report.error)}</ErrorAlert>;
  if (!hasReport(report.data)) return null;
  const data = report.data;
  const reasons = reasonRows(data.counts);
  const quirks = quirkRows(data.counts);
  const refusal = refusalText(data);
  return (
    <Card as="section" id="report" aria-label="Report" className="space-y-4 text-sm" data-testid="import-report">
      <CardHeader
        title="Report"
        description={data.counts.policy === "skip" ? "Invalid records were skipped and are listed below." : "Any invalid record would have failed the import."}
      />
      {refusal && <Notice>{refusal}</Notice>}
      <Facts facts={reportCountFacts(data)} label="Records by outcome" />
      {reasons.length > 0 && (
        <ResultTable
          label="Records by reason"
          testId="import-report-reasons"
          head={["Reason", "Kind", "Records", "Share"]}
          rows={reasons.map((r) => ({ key: r.key, cells: [<span key="reason" className="[overflow-wrap:anywhere]">{r.name}</span>, r.kind, r.count, r.share] }))}
        />
      )}
      {quirks.length > 0 && (
        <ResultTable
          label="Quirks by kind"
          testId="import-report-quirks"
          head={["Quirk accepted", "Records", "Share of read"]}
          rows={quirks.map((q) => ({ key: q.key, cells: [q.name, q.count, q.share] }))}
        />
      )}
      {data.total > 0 && (
        <div className="space-y-2">
          <h3 className="font-medium">
            Records left out <span className="font-normal text-slate-500">({data.total.toLocaleString()})</span>
          </h3>
          <DataTable data={entryRows(data)} columns={columns} getRowId={(e) => e.id} look="compact" rowAttributes={(e) => ({ "data-line": e.line })} testId="import-report-entries" />
          <Pager page={page} pageCount={pageCountOf(data.total, REPORT_PAGE_SIZE)} hasNext={page * REPORT_PAGE_SIZE < data.total} onPage={setPage} testId="import-report-pager" />
        </div>
      )}
      <a href={reportDownloadHref(runId)} download className="inline-block text-blue-700 hover:underline" data-testid="import-report-download">
        Download report (JSONL)
      </a>
    </Card>
  );
}
