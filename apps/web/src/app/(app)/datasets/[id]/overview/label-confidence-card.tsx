"use client";

import { useState } from "react";
import { ConfidenceHistograms } from "~/components/label-confidence/confidence-histograms";
import { CardSelect, ChartCard } from "./chart-card";
import type { OverviewState } from "./types";

export function LabelConfidenceCard(state: OverviewState) {
  const rows = state.overview?.confidence ?? [];
  // Rows arrive newest run first, so the first run seen is the default.
  const runs = [...new Map(rows.map((r) => [r.runId, r.runLabel])).entries()].map(([value, label]) => ({ value, label }));
  const [chosen, setChosen] = useState<string>();
  const runId = runs.find((r) => r.value === chosen)?.value ?? runs[0]?.value;
  const hasAnnotateRun = (state.overview?.qValues.length ?? 0) > 0;
  // Full width on large screens: one small chart per rule, side by side.
  return (
    <div className="min-w-0 lg:col-span-2">
      <ChartCard
        title="Label confidence"
        description={
          runId ? "Labels per tenth of confidence, per rule: the posterior probability that the rule on the true Q-values gives the label; grey: labels without one" : undefined
        }
        loading={state.loading}
        error={state.error}
        emptyText={runId ? null : hasAnnotateRun ? "No chunk labels yet" : "No annotate run yet"}
        controls={runs.length > 1 && runId ? <CardSelect label="Run" value={runId} options={runs} onChange={setChosen} /> : null}
      >
        <ConfidenceHistograms histograms={rows.filter((r) => r.runId === runId)} />
      </ChartCard>
    </div>
  );
}
