"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Card, ErrorAlert } from "~/components/ui";
import { ConfidenceHistograms } from "~/components/label-confidence/confidence-histograms";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

/** An annotate run's label confidence per rule; refreshed now and then while the run is still labelling. */
export function RunConfidence({ runId, active }: { runId: string; active: boolean }) {
  const trpc = useTRPC();
  const confidence = useQuery({ ...trpc.run.confidence.queryOptions({ id: runId }), refetchInterval: active ? 10_000 : false });
  // The last labels are written just before the run ends: read them once more when it does.
  const wasActive = useRef(active);
  const { refetch } = confidence;
  useEffect(() => {
    if (wasActive.current && !active) void refetch();
    wasActive.current = active;
  }, [active, refetch]);
  return (
    <Card as="section" aria-label="Label confidence" className="space-y-2 text-sm">
      <div>
        <h2 className="font-semibold">Label confidence</h2>
        <p className="text-xs text-slate-500">
          Labels per tenth of confidence, per rule: the posterior probability that the rule on the true Q-values gives the label; grey: labels without one.
        </p>
      </div>
      {confidence.error ? (
        <ErrorAlert>{errorMessage(confidence.error)}</ErrorAlert>
      ) : !confidence.data ? (
        <p className="text-slate-500">Loading…</p>
      ) : confidence.data.histograms.length === 0 ? (
        <p className="text-slate-500">{active ? "No chunk labels yet." : "This run stored no chunk labels."}</p>
      ) : (
        <ConfidenceHistograms histograms={confidence.data.histograms} />
      )}
    </Card>
  );
}
