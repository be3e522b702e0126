"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, CHART_COLORS, CHART_MARGIN, ChartFigure, measuredLine, steppedLine, Y_AXIS } from "~/components/ui";

type Point = RouterOutputs["run"]["progress"]["points"][number];

function compact(value: number): string {
  return Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 }).format(value);
}

/** Throughput (a measurement per sample: straight segments between dots) and cumulative token spend (a counter: steps) over the run's life, from its progress samples. */
export function RunCharts({ points, startedAt }: { points: Point[]; startedAt: Date | null }) {
  if (points.length < 2) return <p className="text-sm text-slate-500">Charts appear once the run has made progress for a few seconds.</p>;
  const origin = (startedAt ?? points[0]!.at).getTime();
  const data = points.map((p) => ({
    seconds: Math.max(0, Math.round((p.at.getTime() - origin) / 100) / 10),
    unitsPerSecond: p.unitsPerSecond,
    tokensPerSecond: p.tokensPerSecond,
    promptTokens: p.promptTokens,
    completionTokens: p.completionTokens,
  }));
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <ChartFigure label="Throughput over time" height="h-52">
        <LineChart data={data} margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
          <XAxis dataKey="seconds" type="number" domain={["dataMin", "dataMax"]} unit=" s" tick={AXIS_TICK} />
          <YAxis yAxisId="tokens" tickFormatter={compact} {...Y_AXIS} />
          <YAxis yAxisId="units" orientation="right" {...Y_AXIS} />
          <Tooltip formatter={(value) => (typeof value === "number" ? value.toFixed(1) : String(value))} labelFormatter={(s) => `${s} s`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Line yAxisId="tokens" {...measuredLine()} dataKey="tokensPerSecond" name="generated tokens/s" stroke={CHART_COLORS.blue} connectNulls isAnimationActive={false} />
          <Line yAxisId="units" {...measuredLine()} dataKey="unitsPerSecond" name="units/s" stroke={CHART_COLORS.green} connectNulls isAnimationActive={false} />
        </LineChart>
      </ChartFigure>
      <ChartFigure label="Token spend" height="h-52">
        <AreaChart data={data} margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
          <XAxis dataKey="seconds" type="number" domain={["dataMin", "dataMax"]} unit=" s" tick={AXIS_TICK} />
          <YAxis tickFormatter={compact} {...Y_AXIS} />
          <Tooltip formatter={(value) => (typeof value === "number" ? value.toLocaleString() : String(value))} labelFormatter={(s) => `${s} s`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Area {...steppedLine()} dataKey="promptTokens" name="prompt tokens" stackId="tokens" stroke={CHART_COLORS.slate} fill={CHART_COLORS.fillSlate} isAnimationActive={false} />
          <Area {...steppedLine()} dataKey="completionTokens" name="generated tokens" stackId="tokens" stroke={CHART_COLORS.blue} fill={CHART_COLORS.fillBlue} isAnimationActive={false} />
        </AreaChart>
      </ChartFigure>
    </div>
  );
}
