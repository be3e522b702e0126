"use client";

import type { ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Cell, LabelList, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, Card, CardHeader, CHART_COLORS, CHART_MARGIN, ChartFigure, Y_AXIS } from "~/components/ui";
import type { Fact } from "./shaping";

/** One panel of a run's results: a titled card. */
export function ResultCard({ title, description, children, testId }: { title: string; description?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <Card as="section" aria-label={title} className="space-y-3 text-sm" data-testid={testId}>
      <CardHeader title={title} description={description} />
      {children}
    </Card>
  );
}

/** Named values in a grid of label / value (/ note). */
export function Facts({ facts, label }: { facts: readonly Fact[]; label?: string }) {
  return (
    // Both columns may shrink and long keys or values wrap anywhere, so a narrow screen never scrolls sideways.
    <dl aria-label={label} className="grid grid-cols-[minmax(0,max-content)_minmax(0,1fr)] gap-x-6 gap-y-1">
      {facts.map((f) => (
        <div key={f.label} className="contents">
          <dt className="min-w-0 text-slate-500 [overflow-wrap:anywhere]">{f.label}</dt>
          <dd className="min-w-0 [overflow-wrap:anywhere]">
            <span className="font-medium tabular-nums" data-testid={`fact-${f.label}`}>
              {f.value}
            </span>
            {f.note && <span className="ml-2 text-xs text-slate-500">{f.note}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Shares (accuracies) as horizontal bars on a 0–100 % axis, each labelled with its value; baselines in grey. */
export function ShareBars({ label, bars }: { label: string; bars: readonly { name: string; accuracy: number; label: string; baseline?: boolean }[] }) {
  const data = bars.map((b) => ({ ...b, percent: b.accuracy * 100 }));
  return (
    <ChartFigure label={label} height={bars.length > 3 ? "h-64" : "h-32"}>
      <BarChart data={data} layout="vertical" margin={{ ...CHART_MARGIN, right: 64 }}>
        <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} horizontal={false} />
        <XAxis type="number" domain={[0, 100]} unit=" %" tick={AXIS_TICK} />
        <YAxis type="category" dataKey="name" {...Y_AXIS} />
        <Tooltip formatter={(_value, _name, item) => [(item.payload as { label: string }).label, "Accuracy"]} />
        <Bar dataKey="percent" name="Accuracy" isAnimationActive={false}>
          {data.map((b) => (
            <Cell key={b.name} fill={b.baseline ? CHART_COLORS.muted : CHART_COLORS.blue} />
          ))}
          <LabelList dataKey="label" position="right" style={{ fontSize: 11, fill: CHART_COLORS.slate }} />
        </Bar>
      </BarChart>
    </ChartFigure>
  );
}

/** A small table with a header row; cells are already formatted text or elements. */
export function ResultTable({ label, head, rows, testId }: { label: string; head: readonly string[]; rows: readonly { key: string; cells: readonly ReactNode[] }[]; testId?: string }) {
  return (
    <div className="overflow-x-auto">
      <table aria-label={label} className="w-full text-sm" data-testid={testId}>
        <thead>
          <tr className="border-b border-slate-200 text-left text-xs text-slate-600">
            {head.map((h, i) => (
              <th key={h} className={`px-2 py-1 font-medium ${i > 0 ? "text-right" : ""}`}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} className="border-b border-slate-100 last:border-0">
              {row.cells.map((cell, i) => (
                <td key={i} className={`px-2 py-1 ${i > 0 ? "text-right tabular-nums" : ""}`}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Shown when a finished run's summary is not of the shape this version reads. */
export function UnreadableSummary() {
  return <p className="text-sm text-slate-500">This run&apos;s summary has a form this version does not read; see the raw results below.</p>;
}
