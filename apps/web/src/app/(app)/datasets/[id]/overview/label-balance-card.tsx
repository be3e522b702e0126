"use client";

import { useState } from "react";
import { CardSelect, ChartCard } from "./chart-card";
import { LabelBalanceChart } from "./label-balance-chart";
import type { OverviewState } from "./types";

export function LabelBalanceCard(state: OverviewState) {
  const rows = state.overview?.labelBalance ?? [];
  // Rows arrive newest run first, so the first run seen is the default.
  const runs = [...new Map(rows.map((r) => [r.runId, r.runLabel])).entries()].map(([value, label]) => ({ value, label }));
  const [chosen, setChosen] = useState<string>();
  const runId = runs.find((r) => r.value === chosen)?.value ?? runs[0]?.value;
  const hasAnnotateRun = (state.overview?.qValues.length ?? 0) > 0;
  return (
    <ChartCard
      title="Label balance"
      description={runId ? "Chunks labelled Positive / Negative per rule and parameters" : undefined}
      loading={state.loading}
      error={state.error}
      emptyText={runId ? null : hasAnnotateRun ? "No chunk labels yet" : "No annotate run yet"}
      controls={runs.length > 1 && runId ? <CardSelect label="Run" value={runId} options={runs} onChange={setChosen} /> : null}
    >
      <LabelBalanceChart rows={rows.filter((r) => r.runId === runId)} />
    </ChartCard>
  );
}
