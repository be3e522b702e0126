"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, CHART_COLORS, CHART_MARGIN, ChartFigure, DataTable, dataColumns, ErrorAlert, Select, SERIES_COLORS, Truncate, Y_AXIS, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import type { CompareParams } from "./compare-params";
import { Hint, numberOptions, runLabel, type Candidates } from "./shared";
import { pct } from "./format";
import { scalingAverageName } from "./leaderboard";

type Curve = RouterOutputs["compare"]["scaling"]["runs"][number];
type ScalingRow = { run: string; point: Curve["points"][number] };

const column = dataColumns<ScalingRow>();

function scalingColumns(candidates: Candidates, averageName: string): DataColumn<ScalingRow>[] {
  return [
    column.accessor("run", { header: "Run", cell: (c) => <Truncate text={runLabel(candidates, c.getValue())} className="max-w-72" /> }),
    column.accessor("point.k", { header: "K", meta: { align: "right" } }),
    column.accessor("point.f1", { header: `${averageName}, mean over draws`, cell: (c) => pct(c.getValue()), meta: { align: "right" } }),
    column.display({ id: "range", header: "F1 range", cell: ({ row: { original: r } }) => `${pct(r.point.f1Range.min)}–${pct(r.point.f1Range.max)}`, meta: { align: "right", className: "text-xs text-slate-500" } }),
    column.display({
      id: "bySubset",
      header: "F1 per subset",
      meta: { className: "text-xs text-slate-600" },
      cell: ({ row: { original: r } }) =>
        Object.entries(r.point.f1BySubset)
          .map(([s, f1]) => `${s} ${pct(f1)}`)
          .join(" · "),
    }),
    column.accessor("point.tokensPerSolution", { header: "Judge tokens / solution", cell: (c) => Math.round(c.getValue()).toLocaleString(), meta: { align: "right" } }),
  ];
}

function compact(value: number): string {
  return Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 }).format(value);
}

/** One line per run: F1 against K (log scale) and against judge tokens per solution. */
function ScalingCharts({ curves, candidates, averageName }: { curves: Curve[]; candidates: Candidates; averageName: string }) {
  const series = curves.map((c, i) => ({
    name: runLabel(candidates, c.run.id),
    color: SERIES_COLORS[i % SERIES_COLORS.length]!,
    points: c.points.map((p) => ({ k: p.k, tokens: Math.round(p.tokensPerSolution), f1: Number(pct(p.f1)) })),
  }));
  const maxK = Math.max(1, ...curves.map((c) => c.maxK));
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <ChartFigure label={`${averageName} (%) vs samples per chunk K`} testId="scaling-chart-k" height="h-64">
        <LineChart margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
          <XAxis dataKey="k" type="number" scale="log" domain={[1, maxK]} ticks={curves[0]?.points.map((p) => p.k)} allowDuplicatedCategory={false} tick={AXIS_TICK} />
          <YAxis {...Y_AXIS} />
          <Tooltip formatter={(value) => (typeof value === "number" ? value.toFixed(1) : String(value))} labelFormatter={(k) => `K = ${k}`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {series.map((s) => (
            <Line key={s.name} data={s.points} dataKey="f1" name={s.name} stroke={s.color} isAnimationActive={false} />
          ))}
        </LineChart>
      </ChartFigure>
      <ChartFigure label={`${averageName} (%) vs judge tokens per solution`} testId="scaling-chart-tokens" height="h-64">
        <LineChart margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
          <XAxis dataKey="tokens" type="number" domain={["dataMin", "dataMax"]} tickFormatter={compact} allowDuplicatedCategory={false} tick={AXIS_TICK} />
          <YAxis {...Y_AXIS} />
          <Tooltip formatter={(value) => (typeof value === "number" ? value.toFixed(1) : String(value))} labelFormatter={(t) => `${compact(Number(t))} tokens`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {series.map((s) => (
            <Line key={s.name} data={s.points} dataKey="f1" name={s.name} stroke={s.color} isAnimationActive={false} />
          ))}
        </LineChart>
      </ChartFigure>
    </div>
  );
}

/** The name of the curves' F1, an average over each run's subsets (partial unless ProcessBench's four). */
const averageNameOf = (curves: readonly Curve[]) => scalingAverageName(curves.map((c) => Object.keys(c.points[0]?.f1BySubset ?? {})));

/** Maj@K curves replayed from stored samples: no model is asked anything. */
export function ScalingTab({ runs, candidates, params }: { runs: string[]; candidates: Candidates; params: CompareParams }) {
  const trpc = useTRPC();
  const judged = runs.filter((id) => candidates.judgeRuns.some((r) => r.id === id));
  const draws = Math.min(200, Math.max(1, Number.parseInt(params.get("draws") ?? "20", 10) || 20));
  const result = useQuery({ ...trpc.compare.scaling.queryOptions({ runIds: judged, draws }), enabled: judged.length > 0, staleTime: 5 * 60_000 });
  if (judged.length === 0) return <Hint>Pick one or more runs that judged chunks (judge runs, chunk-judge benchmarks) above.</Hint>;
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label className="flex items-center gap-2">
          <span className="text-slate-600">Random K-subsets per K</span>
          <Select inline value={draws} data-testid="scaling-draws" onChange={(e) => params.update({ draws: e.target.value })} options={numberOptions([1, 5, 20, 50, 200])} />
        </label>
        <p className="text-xs text-slate-500">
          K-subsets of each chunk&apos;s stored samples stand in for runs that drew K; the largest K is the fewest samples stored on a chunk. Chunks a stop-at-first-Negative run never judged count as Positive and cost nothing; a chunk&apos;s prompt is paid once.
        </p>
      </div>
      {result.error && <ErrorAlert>{errorMessage(result.error)}</ErrorAlert>}
      {!result.data && !result.error && <Hint>Replaying votes…</Hint>}
      {result.data && (
        <>
          <ScalingCharts curves={result.data.runs} candidates={candidates} averageName={averageNameOf(result.data.runs)} />
          <DataTable
            testId="scaling-table"
            data={result.data.runs.flatMap((curve) => curve.points.map((point) => ({ run: curve.run.id, point })))}
            columns={scalingColumns(candidates, averageNameOf(result.data.runs))}
            getRowId={(r) => `${r.run}-${r.point.k}`}
            rowAttributes={({ run, point }) => ({ "data-testid": "scaling-row", "data-run": run, "data-k": point.k, "data-f1": point.f1, "data-tokens": point.tokensPerSolution })}
          />
        </>
      )}
    </div>
  );
}
