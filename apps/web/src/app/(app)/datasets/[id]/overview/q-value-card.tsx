"use client";

import { useState } from "react";
import { CardSelect, ChartCard } from "./chart-card";
import { HistogramChart } from "./histogram-chart";
import type { OverviewState } from "./types";
import { CHART_COLORS } from "~/components/ui/chart-colors";

export function QValueCard(state: OverviewState) {
  const runs = state.overview?.qValues ?? [];
  const [chosen, setChosen] = useState<string>();
  const run = runs.find((r) => r.runId === chosen) ?? runs[0];
  const total = run?.bins.reduce((sum, b) => sum + b.count, 0) ?? 0;
  const bins = (run?.bins ?? []).map((b) => ({ bin: `${b.from.toFixed(1)}–${b.to?.toFixed(1)}`, chunks: b.count }));
  return (
    <ChartCard
      title="Q-value histogram"
      description={run ? `Q after each chunk (Q₀ of the bare problem left out); ${total.toLocaleString()} values, Q = 1 in the last bin` : undefined}
      loading={state.loading}
      error={state.error}
      emptyText={!run ? "No annotate run yet" : total === 0 ? "This annotate run has no Q-values yet" : null}
      controls={
        runs.length > 1 && run ? <CardSelect label="Run" value={run.runId} options={runs.map((r) => ({ value: r.runId, label: r.label }))} onChange={setChosen} /> : null
      }
    >
      <HistogramChart bins={bins} series={[{ key: "chunks", name: "Chunks", color: CHART_COLORS.green }]} xLabel="Q-value" yLabel="chunks" />
    </ChartCard>
  );
}
