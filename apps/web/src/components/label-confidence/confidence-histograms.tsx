"use client";

import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { CHART_COLORS, ChartFigure } from "~/components/ui";
import { confidenceCharts, type ConfidenceHistogramInput } from "./confidence-charts";

const BAR_COLOR = CHART_COLORS.blue;
const NONE_COLOR = CHART_COLORS.muted;

/**
 * Label confidence per rule: one small bar chart each, labels per tenth of
 * confidence (the posterior probability that the rule on the true Q-values
 * gives the label) and, apart in grey, labels without one. Each figure's
 * caption says what its chart shows in words.
 */
export function ConfidenceHistograms({ histograms, testId = "confidence-histogram" }: { histograms: readonly ConfidenceHistogramInput[]; testId?: string }) {
  const charts = confidenceCharts(histograms);
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-3">
      {charts.map((chart) => (
        <ChartFigure
          key={chart.key}
          label={`Label confidence, ${chart.name}`}
          testId={testId}
          height="h-36"
          caption={
            <>
              <span className="font-mono">{chart.name}</span>
              <span className="mt-0.5 block font-normal text-slate-500" data-testid="confidence-summary">
                {chart.summary}
              </span>
            </>
          }
        >
          <BarChart data={chart.bars} margin={{ top: 5, right: 5, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} vertical={false} />
            <XAxis dataKey="bin" tick={{ fontSize: 10 }} interval={0} angle={-35} textAnchor="end" height={36} />
            <YAxis allowDecimals={false} tick={{ fontSize: 10 }} width={40} />
            <Tooltip formatter={(value) => (typeof value === "number" ? value.toLocaleString() : String(value))} />
            {/* One slot per bar: the tenths and "none" are two series stacked, each zero on the other's bars. */}
            <Bar dataKey="labels" name="labels" stackId="labels" fill={BAR_COLOR} isAnimationActive={false} />
            <Bar dataKey="none" name="without a confidence" stackId="labels" fill={NONE_COLOR} isAnimationActive={false} />
          </BarChart>
        </ChartFigure>
      ))}
    </div>
  );
}
