"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ErrorAlert } from "~/components/alert";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

export function ImportProcessBenchForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [readError, setReadError] = useState<string | null>(null);
  const importFile = useMutation(
    trpc.import.processbench.mutationOptions({ onSuccess: ({ runId }) => router.push(`/runs/${runId}`) }),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setReadError(null);
    const form = new FormData(event.currentTarget);
    const file = form.get("file");
    if (!(file instanceof File) || file.size === 0) {
      setReadError("Choose a ProcessBench JSON file first.");
      return;
    }
    const datasetName = String(form.get("datasetName") ?? "").trim();
    importFile.mutate({ fileName: file.name, content: await file.text(), datasetName: datasetName || undefined });
  }

  const error = readError ?? (importFile.error ? errorMessage(importFile.error) : null);
  return (
    <form onSubmit={onSubmit} className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 className="text-sm font-semibold">Import ProcessBench</h2>
      <div className="flex flex-wrap items-end gap-4 text-sm">
        <label className="block">
          <span className="block font-medium">ProcessBench file</span>
          <input name="file" type="file" accept=".json,application/json" className="mt-1 block text-sm" />
        </label>
        <label className="block">
          <span className="block font-medium">Dataset name (optional)</span>
          <input name="datasetName" type="text" maxLength={200} className="mt-1 block rounded border border-slate-300 px-2 py-1" />
        </label>
        <button
          type="submit"
          disabled={importFile.isPending}
          className="rounded bg-slate-900 px-3 py-1.5 font-medium text-white disabled:opacity-60"
        >
          {importFile.isPending ? "Uploading…" : "Import"}
        </button>
      </div>
      <p className="text-xs text-slate-500">
        A JSON array of ProcessBench records (id, generator, problem, steps, final_answer_correct, label). The whole file is
        checked before anything is stored.
      </p>
      {error && <ErrorAlert>{error}</ErrorAlert>}
    </form>
  );
}
