"use client";

import { describeStoredLabelRule } from "@stepwiser/core";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, CHART_MARGIN, Y_AXIS } from "~/components/ui/chart-axes";
import { CHART_COLORS } from "~/components/ui/chart-colors";

export interface LabelBalanceRow {
  rule: string;
  paramsKey: string;
  positive: number;
  negative: number;
}

const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${((part / whole) * 100).toFixed(1)}%`);

/** Positive and Negative chunk labels stacked per rule and parameter setting, one bar each. */
export function LabelBalanceChart({ rows }: { rows: LabelBalanceRow[] }) {
  const data = rows.map((r) => ({ name: describeStoredLabelRule(r.rule, r.paramsKey), positive: r.positive, negative: r.negative, total: r.positive + r.negative }));
  return (
    <div className="w-full" style={{ height: Math.max(160, 44 * data.length + 60) }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={AXIS_TICK} />
          <YAxis type="category" dataKey="name" {...Y_AXIS} />
          <Tooltip
            formatter={(value, name, item) => {
              const total = (item.payload as { total: number }).total;
              return typeof value === "number" ? [`${value.toLocaleString()} (${percent(value, total)})`, name] : [String(value), name];
            }}
          />
          <Legend verticalAlign="top" wrapperStyle={{ fontSize: 11 }} />
          <Bar dataKey="positive" name="Positive" stackId="labels" fill={CHART_COLORS.green} isAnimationActive={false} />
          <Bar dataKey="negative" name="Negative" stackId="labels" fill={CHART_COLORS.red} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
