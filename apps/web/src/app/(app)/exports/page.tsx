"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { anyRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { ExportList } from "./export-list";
import { RunExportForm } from "./run-export-form";
import { TrainingSetForm } from "./training-set-form";

export default function ExportsPage() {
  const trpc = useTRPC();
  const canExport = useCan("research.manage");
  const sources = useQuery({
    ...trpc.export.sources.queryOptions(),
    enabled: canExport,
    // A running annotate run gains labels (and rules) as it goes.
    refetchInterval: (query) => (anyRunActive(query.state.data?.labelRuns) ? 10_000 : false),
  });

  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Exports</h1>
      {canExport && sources.error && <ErrorAlert>{errorMessage(sources.error)}</ErrorAlert>}
      {canExport && sources.data && (
        <>
          <TrainingSetForm labelRuns={sources.data.labelRuns} />
          <div className="grid gap-4 md:grid-cols-2">
            <RunExportForm kind="labels" runs={sources.data.labelRuns} />
            <RunExportForm kind="predictions" runs={sources.data.predictionRuns} />
          </div>
        </>
      )}
      <section aria-label="Export runs" className="space-y-2">
        <h2 className="text-sm font-semibold">Export runs</h2>
        <ExportList />
      </section>
    </div>
  );
}
