"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Button, Card, ErrorAlert, StatusBadge } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { formatBytes } from "~/lib/format-bytes";
import { anyRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { uploadFile } from "../../datasets/upload-file";

const BATCH_KINDS = new Set(["annotate", "judge"]);
/** States in which a run can still take an offline batch (running or finished runs cannot). */
const WAITING = new Set(["queued", "cancelled", "failed", "completed_with_failures"]);

/**
 * Offline execution of an annotate or judge run: its requests as an OpenAI
 * batch file for `vllm run-batch` (an export run), and the output uploaded back
 * (an import run, which then queues this run).
 */
export function OfflineBatch({ runId, kind, status }: { runId: string; kind: string; status: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canRun = useCan("research.manage");
  const [upload, setUpload] = useState<{ sent: number; total: number } | null>(null);
  const [importRunId, setImportRunId] = useState<string | null>(null);
  const exports = useQuery({
    ...trpc.export.list.queryOptions({ sourceRunId: runId, limit: 10 }),
    enabled: canRun && BATCH_KINDS.has(kind),
    refetchInterval: (query) => (anyRunActive(query.state.data) ? 1000 : false),
  });
  const startExport = useMutation(trpc.export.start.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.export.list.pathKey() }) }));
  const startImport = useMutation(trpc.import.startBatchOutput.mutationOptions({ onSuccess: ({ runId: id }) => setImportRunId(id) }));
  const [uploadError, setUploadError] = useState<string | null>(null);
  if (!canRun || !BATCH_KINDS.has(kind) || !WAITING.has(status)) return null;

  const batchExports = (exports.data ?? []).filter((e) => e.spec?.kind === "batch-requests");
  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setUploadError(null);
    try {
      const uploaded = await uploadFile(file, (sent, total) => setUpload({ sent, total }));
      startImport.mutate({ fileId: uploaded.fileId, runId });
    } catch (error) {
      setUploadError(error instanceof Error ? error.message : String(error));
    } finally {
      setUpload(null);
    }
  };

  return (
    <Card as="section" aria-labelledby="offline-batch" className="text-sm">
      <h2 id="offline-batch" className="font-medium">
        Offline batch
      </h2>
      <p className="mt-1 text-slate-600">
        Export the requests this run needs as an OpenAI batch file, run it with <code>vllm run-batch</code> on the GPU machine, and upload the output: the run
        then computes the same results as online, sending only requests that failed offline.
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button className="font-medium" disabled={startExport.isPending} onClick={() => startExport.mutate({ spec: { kind: "batch-requests", runId } })}>
          Export batch requests
        </Button>
        <label className="flex items-center gap-2">
          <span className="text-slate-700">Upload run-batch output</span>
          <input type="file" accept=".jsonl,application/x-ndjson" onChange={(event) => void onFile(event.target.files?.[0])} disabled={upload !== null || startImport.isPending} />
        </label>
        {upload && <span className="text-slate-600">uploading {formatBytes(upload.sent)} of {formatBytes(upload.total)}…</span>}
      </div>
      {batchExports.length > 0 && (
        <ul className="mt-3 space-y-1">
          {batchExports.map((e) => (
            <li key={e.id} className="flex flex-wrap items-center gap-2">
              <StatusBadge status={e.status} />
              {e.files.map((f) => (
                <a key={f.id} href={`/api/files/${f.id}`} className="text-blue-700 underline">
                  {f.fileName} ({formatBytes(f.sizeBytes)})
                </a>
              ))}
              {e.error && <span className="text-red-700">{e.error}</span>}
            </li>
          ))}
        </ul>
      )}
      {importRunId && (
        <p className="mt-3">
          Output import queued as{" "}
          <Link href={`/runs/${importRunId}`} className="text-blue-700 underline">
            run {importRunId}
          </Link>
          ; this run is queued once its samples are stored.
        </p>
      )}
      {(startExport.error || startImport.error || uploadError) && (
        <div className="mt-3">
          <ErrorAlert>{uploadError ?? errorMessage((startExport.error ?? startImport.error)!)}</ErrorAlert>
        </div>
      )}
    </Card>
  );
}
