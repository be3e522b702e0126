"use client";

import { useState } from "react";
import { CardSelect, ChartCard } from "./chart-card";
import { HistogramChart } from "./histogram-chart";
import type { OverviewState } from "./types";
import { CHART_COLORS } from "~/components/ui/chart-colors";

const NO_SEGMENTATION = "No segmented solution yet";

function useMethod(state: OverviewState) {
  const segmentations = state.overview?.segmentations ?? [];
  const [chosen, setChosen] = useState<string>();
  const segmentation = segmentations.find((s) => s.method === chosen) ?? segmentations[0];
  const picker =
    segmentations.length > 1 && segmentation ? (
      <CardSelect
        label="Segmentation"
        value={segmentation.method}
        options={segmentations.map((s) => ({ value: s.method, label: s.method }))}
        onChange={setChosen}
      />
    ) : null;
  return { segmentation, picker };
}

export function ChunksPerSolutionCard(state: OverviewState) {
  const { segmentation, picker } = useMethod(state);
  const bins = (segmentation?.chunksPerSolution ?? []).map((b) => ({ bin: b.orMore ? `${b.value}+` : String(b.value), solutions: b.solutions }));
  return (
    <ChartCard
      title="Chunks per solution"
      description={segmentation ? `${segmentation.method}: ${segmentation.solutions.toLocaleString()} solutions, ${segmentation.chunks.toLocaleString()} chunks` : undefined}
      loading={state.loading}
      error={state.error}
      emptyText={segmentation ? null : NO_SEGMENTATION}
      controls={picker}
    >
      <HistogramChart bins={bins} series={[{ key: "solutions", name: "Solutions", color: CHART_COLORS.blue }]} xLabel="chunks" yLabel="solutions" />
    </ChartCard>
  );
}

export function ChunkLengthCard(state: OverviewState) {
  const { segmentation, picker } = useMethod(state);
  const all = segmentation?.chunkLength ?? [];
  // Empty bins past the longest chunk only stretch the axis.
  const lastFilled = all.findLastIndex((b) => b.count > 0);
  const bins = all.slice(0, lastFilled + 1).map((b) => ({ bin: b.to === null ? `${b.from}+` : `${b.from}–${b.to}`, chunks: b.count }));
  return (
    <ChartCard
      title="Chunk length"
      description={segmentation ? `${segmentation.method}: characters per chunk (bins widen with length)` : undefined}
      loading={state.loading}
      error={state.error}
      emptyText={!segmentation ? NO_SEGMENTATION : lastFilled < 0 ? "No chunks yet" : null}
      controls={picker}
    >
      <HistogramChart bins={bins} series={[{ key: "chunks", name: "Chunks", color: CHART_COLORS.blue }]} xLabel="characters" yLabel="chunks" />
    </ChartCard>
  );
}
