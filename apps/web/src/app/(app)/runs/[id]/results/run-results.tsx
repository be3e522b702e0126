"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { AnnotateResults } from "./annotate-results";
import { BenchmarkResults } from "./benchmark-results";
import { BestOfNResults } from "./best-of-n-results";
import { ChunkResetResults } from "./chunk-reset-results";
import { GenerateResults } from "./generate-results";
import { JudgeResults } from "./judge-results";
import { ExportResults, ImportResults, SegmentResults } from "./other-results";
import type { RunResults as Results } from "./shaping";

function KindResults({ result }: { result: Results }) {
  switch (result.kind) {
    case "annotate":
      return <AnnotateResults result={result} />;
    case "judge":
      return <JudgeResults result={result} />;
    case "benchmark":
      return <BenchmarkResults result={result} runId={result.runId} />;
    case "generate":
      return <GenerateResults result={result} />;
    case "chunk_reset":
      return <ChunkResetResults result={result} />;
    case "best_of_n":
      return <BestOfNResults result={result} />;
    case "segment":
      return <SegmentResults result={result} />;
    case "import":
      return <ImportResults result={result} />;
    case "export":
      return <ExportResults result={result} />;
  }
}

/**
 * A finished run's results, read per run kind (`run.results`), with the stored
 * summary still there as JSON behind a closed disclosure.
 */
export function RunResults({ runId, summary }: { runId: string; summary: unknown }) {
  const trpc = useTRPC();
  const results = useQuery(trpc.run.results.queryOptions({ id: runId }));
  return (
    <section aria-labelledby="results-heading" className="space-y-3">
      <h2 id="results-heading" className="text-base font-semibold">
        Results
      </h2>
      {results.error ? <ErrorAlert>{errorMessage(results.error)}</ErrorAlert> : !results.data ? <p className="text-sm text-slate-500">Loading…</p> : <KindResults result={results.data} />}
      <details className="text-sm">
        <summary className="cursor-pointer text-slate-600">Raw results (JSON)</summary>
        <pre className="mt-2 overflow-x-auto rounded bg-slate-100 p-3 text-xs" data-testid="raw-results">
          {JSON.stringify(summary, null, 2)}
        </pre>
      </details>
    </section>
  );
}
