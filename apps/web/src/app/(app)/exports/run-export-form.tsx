"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, CardTitle, ErrorAlert, Field, Select } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { sourceRunOption } from "./shared";

interface SourceRun {
  id: string;
  kind: string;
  name: string;
  status: string;
  dataset: { name: string } | null;
}

/** One JSONL export of a whole run: its chunk labels (and Q-values, human labels) or its solution-level predictions. */
export function RunExportForm({ kind, runs }: { kind: "labels" | "predictions"; runs: SourceRun[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [runId, setRunId] = useState("");
  const [queued, setQueued] = useState(false);
  const start = useMutation(
    trpc.export.start.mutationOptions({
      onSuccess: () => {
        setQueued(true);
        void queryClient.invalidateQueries({ queryKey: trpc.export.list.queryKey() });
      },
    }),
  );
  const title = kind === "labels" ? "Labels JSONL" : "Predictions JSONL";
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setQueued(false);
    start.mutate({ spec: { kind, runId } });
  };
  return (
    <Card as="form" onSubmit={onSubmit} aria-label={`Export ${title.toLowerCase()}`} className="space-y-3">
      <CardTitle>{title}</CardTitle>
      <p className="text-xs text-slate-600">
        {kind === "labels"
          ? "One line per chunk: its text, Q-value, every stored label rule and every human rating."
          : "One line per solution, { id, prediction }: the predicted first wrong step (−1 for none), as ProcessBench scoring reads it."}
      </p>
      <Field label={kind === "labels" ? "Annotate or import run" : "Benchmark or judge run"}>
        <Select required value={runId} data-testid={`export-${kind}-source`} onChange={(e) => setRunId(e.target.value)} placeholder="Choose…" options={runs.map(sourceRunOption)} />
      </Field>
      {start.error && <ErrorAlert>{errorMessage(start.error)}</ErrorAlert>}
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={start.isPending || !runId}>
          {start.isPending ? "Queueing…" : `Export ${kind}`}
        </Button>
        {queued && <span className="text-sm text-slate-600">Queued.</span>}
      </div>
    </Card>
  );
}
