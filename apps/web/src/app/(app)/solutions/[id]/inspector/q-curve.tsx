"use client";

import type { Label } from "@stepwiser/core";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, CHART_COLORS, CHART_MARGIN, ChartFigure, measuredLine, steppedLine, Y_AXIS } from "~/components/ui";

interface Point {
  step: string;
  q: number | null;
  /** Rel-Ratio's bar for this chunk: γ times the previous value. */
  threshold: number | null;
  label: Label | null;
}

/**
 * Q after each chunk (Q_0 first), with Rel-Ratio's threshold γ·Q_{i-1}: a chunk
 * whose Q falls below the dashed line is labelled Negative under Rel-Ratio.
 */
export function QCurve({ q0, q, gamma, relRatio }: { q0: number | null; q: (number | null)[]; gamma: number; relRatio: Label[] | null }) {
  const points: Point[] = [{ step: "Q₀", q: q0, threshold: null, label: null }];
  q.forEach((value, i) => {
    const previous = i === 0 ? q0 : q[i - 1]!;
    points.push({ step: `#${i}`, q: value, threshold: previous === null ? null : Math.min(1, gamma * previous), label: relRatio?.[i] ?? null });
  });
  return (
    <ChartFigure label="Q-value curve" caption="Q-value after each chunk" height="h-48">
      <LineChart data={points} margin={CHART_MARGIN}>
        <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
        <XAxis dataKey="step" tick={AXIS_TICK} />
        <YAxis domain={[0, 1]} {...Y_AXIS} />
        <Tooltip formatter={(value) => (typeof value === "number" ? value.toFixed(2) : String(value))} />
        <Legend wrapperStyle={{ fontSize: 11 }} />
        <Line {...measuredLine()} dataKey="q" name="Q" stroke={CHART_COLORS.green} strokeWidth={2} connectNulls isAnimationActive={false} />
        <Line {...steppedLine()} dataKey="threshold" name={`γ·Q(prev), γ = ${gamma}`} stroke={CHART_COLORS.red} strokeDasharray="4 3" connectNulls isAnimationActive={false} />
      </LineChart>
    </ChartFigure>
  );
}
