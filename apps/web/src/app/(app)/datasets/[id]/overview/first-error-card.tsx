"use client";

import { useState } from "react";
import { CardSelect, ChartCard } from "./chart-card";
import { HistogramChart, type HistogramBin, type HistogramSeries } from "./histogram-chart";
import type { DatasetOverview, OverviewState } from "./types";
import { CHART_COLORS } from "~/components/ui/chart-colors";

type Series = DatasetOverview["firstError"][number];

const SOURCE_COLOR = CHART_COLORS.slate;
const RUN_COLOR = CHART_COLORS.blue;

/** The source labels beside one run's first Negative chunk, so a run's errors can be compared with the reference. */
export function FirstErrorCard(state: OverviewState) {
  const all = state.overview?.firstError ?? [];
  const reference = all.find((s) => s.source === "source");
  const runs = all.filter((s): s is Series & { runId: string } => s.runId !== undefined);
  const [chosen, setChosen] = useState<string>();
  const run = runs.find((s) => s.runId === chosen) ?? runs[0];
  const shown = [reference, run].filter((s): s is Series => s !== undefined);
  const series: HistogramSeries[] = shown.map((s, i) => ({ key: `s${i}`, name: s.label, color: s === reference ? SOURCE_COLOR : RUN_COLOR }));
  // Every series has the same positions (the server aligns them), so bins are read by index.
  const bins: HistogramBin[] = (shown[0]?.bins ?? []).map((b, i) => {
    const bin: HistogramBin = { bin: b.position === "none" ? "none" : b.orMore ? `${b.position}+` : String(b.position) };
    shown.forEach((s, j) => (bin[`s${j}`] = s.bins[i]?.count ?? 0));
    return bin;
  });
  return (
    <ChartCard
      title="First-error position"
      description={shown.length > 0 ? "Index of the first erroneous chunk per solution (runs: first Negative chunk); none = no error" : undefined}
      loading={state.loading}
      error={state.error}
      emptyText={shown.length > 0 ? null : "No first-error labels and no annotate or judge run yet"}
      controls={
        runs.length > 1 && run ? <CardSelect label="Run" value={run.runId} options={runs.map((s) => ({ value: s.runId, label: s.label }))} onChange={setChosen} /> : null
      }
    >
      <HistogramChart bins={bins} series={series} xLabel="first-error chunk" yLabel="solutions" />
    </ChartCard>
  );
}
