"use client";

import type { FileImportSummary, ImportRunSummary } from "@stepwiser/jobs";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Button, ErrorAlert, ProgressBar, StatusBadge } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { isRunActive } from "~/lib/run-status";
import { useTRPC } from "~/trpc/react";
import { humanWorkConfirmation, humanWorkDeletedText } from "./human-work-confirm";

/** Counts of a finished import in one line: what was written, skipped, replaced, and what came with it. */
export function importSummaryText(summary: ImportRunSummary): string {
  if ("samples" in summary) {
    const counts = [`${summary.requests.toLocaleString()} requests`, `${summary.samples.toLocaleString()} samples stored`, `${summary.skipped.toLocaleString()} skipped`].join(" · ");
    return summary.skippedReason ? `${counts}: ${summary.skippedReason}` : counts;
  }
  const parts = [
    `${summary.records.toLocaleString()} records`,
    `${summary.written.toLocaleString()} written`,
    `${summary.skipped.toLocaleString()} skipped`,
    `${summary.replaced.toLocaleString()} replaced`,
    `${summary.chunks.toLocaleString()} chunks`,
  ];
  if (summary.humanLabels > 0) parts.push(`${summary.humanLabels.toLocaleString()} human labels`);
  if (summary.chunkLabels > 0) parts.push(`${summary.chunkLabels.toLocaleString()} chunk labels`);
  // Imports stored before reports existed have none.
  if (summary.report && summary.report.invalid > 0) parts.push(`${summary.report.invalid.toLocaleString()} invalid skipped`);
  if (summary.report && summary.report.ignored > 0) parts.push(`${summary.report.ignored.toLocaleString()} ignored`);
  const deleted = humanWorkDeletedText(summary.humanWorkDeleted);
  if (deleted) parts.push(deleted);
  return parts.join(" · ");
}

/**
 * A started import, followed until it ends: progress while it reads, then its
 * counts or the error that stopped it. A replace import refused for the human
 * work it would delete offers to import again deleting it (`onDeleteHumanWork`),
 * once the user has ticked the statement of what goes.
 */
export function ImportRunStatus({ runId, onDeleteHumanWork, deleting = false }: { runId: string; onDeleteHumanWork?: () => void; deleting?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const run = useQuery({
    ...trpc.run.get.queryOptions({ id: runId }),
    refetchInterval: (query) => (!query.state.data || isRunActive(query.state.data.status) ? 1000 : false),
  });
  const status = run.data?.status;
  const finished = status !== undefined && !isRunActive(status);

  useEffect(() => {
    if (!finished) return;
    // The dataset list and the import history changed with this run.
    void queryClient.invalidateQueries({ queryKey: trpc.dataset.list.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.import.list.queryKey() });
  }, [finished, queryClient, trpc]);

  if (run.error) return <ErrorAlert>{errorMessage(run.error)}</ErrorAlert>;
  if (!run.data) return <p className="text-sm text-slate-500">Starting the import…</p>;
  const r = run.data;
  const summary = r.read?.kind === "import" ? r.read.summary : null;
  // A file import's counts; an OpenAI batch output import counts requests and samples instead.
  const file = summary && "records" in summary ? summary : null;
  return (
    <section aria-label="Import run" data-testid="import-status" data-status={r.status} className="space-y-2 rounded border border-slate-200 p-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <span className="font-medium">Import</span>
        <StatusBadge status={r.status} />
        <Link href={`/runs/${r.id}`} className="text-blue-700 hover:underline">
          Run details
        </Link>
        {r.status === "completed" && r.datasetId && (
          <Link href={`/datasets/${r.datasetId}`} className="text-blue-700 hover:underline">
            Open the dataset →
          </Link>
        )}
      </div>
      {!finished && (
        <div className="space-y-1">
          <ProgressBar done={r.unitsDone} total={r.unitsTotal} label="Import progress" />
          <p className="text-xs text-slate-600 tabular-nums">
            {r.unitsDone.toLocaleString()} records read{r.unitsTotal > r.unitsDone ? ` of about ${r.unitsTotal.toLocaleString()}` : ""}
          </p>
        </div>
      )}
      {r.status === "completed" && summary && (
        <p className="text-sm text-slate-700" data-testid="import-summary">
          {file?.duplicateOfRunId ? (
            <>
              This file was imported before with the same options (
              <Link href={`/runs/${file.duplicateOfRunId}`} className="text-blue-700 hover:underline">
                run {file.duplicateOfRunId}
              </Link>
              ); nothing was written again.
            </>
          ) : (
            <>
              {importSummaryText(summary)}
              {file?.report && file.report.invalid + file.report.ignored > 0 && (
                <>
                  {" "}
                  <Link href={`/runs/${r.id}#report`} className="text-blue-700 hover:underline">
                    See the report
                  </Link>
                </>
              )}
            </>
          )}
        </p>
      )}
      {r.error && <ErrorAlert>{r.error}</ErrorAlert>}
      {r.status === "failed" && onDeleteHumanWork && <HumanWorkRetry refused={file?.humanWorkRefused} onConfirm={onDeleteHumanWork} deleting={deleting} />}
    </section>
  );
}

/** The refused import's human work by place, and a ticked statement before importing again with it deleted. */
function HumanWorkRetry({ refused, onConfirm, deleting }: { refused: FileImportSummary["humanWorkRefused"]; onConfirm: () => void; deleting: boolean }) {
  const [confirmed, setConfirmed] = useState(false);
  const confirmation = humanWorkConfirmation(refused);
  if (!confirmation) return null;
  return (
    <div className="space-y-2 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" data-testid="human-work-confirm">
      <p className="font-medium">Replacing these solutions would delete human work:</p>
      <ul className="list-disc pl-5">
        {confirmation.places.map((place) => (
          <li key={place.key}>
            <Link href={place.href} className="text-blue-700 hover:underline">
              {place.text}
            </Link>
          </li>
        ))}
      </ul>
      <label className="flex items-start gap-2">
        <input type="checkbox" className="mt-1" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} />
        <span>{confirmation.statement}</span>
      </label>
      <Button variant="dark" disabled={!confirmed || deleting} onClick={onConfirm}>
        {deleting ? "Starting…" : confirmation.action}
      </Button>
    </div>
  );
}
