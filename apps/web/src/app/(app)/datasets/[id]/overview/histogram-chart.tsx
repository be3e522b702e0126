"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, CHART_MARGIN } from "~/components/ui/chart-axes";
import { CHART_COLORS } from "~/components/ui/chart-colors";

export interface HistogramSeries {
  /** Key of the series' count in each bin. */
  key: string;
  name: string;
  color: string;
}

export type HistogramBin = { bin: string } & Record<string, number | string>;

/** Bars over labelled bins; several series are drawn side by side. */
export function HistogramChart({ bins, series, xLabel, yLabel }: { bins: HistogramBin[]; series: HistogramSeries[]; xLabel: string; yLabel: string }) {
  return (
    <div className="h-60 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={bins} margin={{ ...CHART_MARGIN, bottom: 18 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} vertical={false} />
          <XAxis dataKey="bin" tick={AXIS_TICK} interval="preserveStartEnd" label={{ value: xLabel, position: "insideBottom", offset: -12, fontSize: 11 }} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={48} label={{ value: yLabel, angle: -90, position: "insideLeft", fontSize: 11, dy: 40 }} />
          <Tooltip formatter={(value) => (typeof value === "number" ? value.toLocaleString() : String(value))} />
          {series.length > 1 && <Legend verticalAlign="top" wrapperStyle={{ fontSize: 11 }} />}
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
