"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface LabelBalanceRow {
  rule: string;
  paramsKey: string;
  positive: number;
  negative: number;
}

/** `{"gamma":0.8}` → `gamma=0.8`; a key that is not a JSON object is shown as stored. */
function paramsText(paramsKey: string): string {
  try {
    const params = JSON.parse(paramsKey) as unknown;
    if (params && typeof params === "object" && !Array.isArray(params)) {
      return Object.entries(params)
        .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
        .join(", ");
    }
  } catch {
    // not JSON: fall through
  }
  return paramsKey;
}

const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${((part / whole) * 100).toFixed(1)}%`);

/** Positive and Negative chunk labels stacked per rule and parameter setting, one bar each. */
export function LabelBalanceChart({ rows }: { rows: LabelBalanceRow[] }) {
  const data = rows.map((r) => {
    const params = paramsText(r.paramsKey);
    return { name: params ? `${r.rule} (${params})` : r.rule, positive: r.positive, negative: r.negative, total: r.positive + r.negative };
  });
  return (
    <div className="w-full" style={{ height: Math.max(160, 44 * data.length + 60) }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 5, right: 10, bottom: 0, left: 10 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
          <YAxis type="category" dataKey="name" tick={{ fontSize: 11 }} width={150} />
          <Tooltip
            formatter={(value, name, item) => {
              const total = (item.payload as { total: number }).total;
              return typeof value === "number" ? [`${value.toLocaleString()} (${percent(value, total)})`, name] : [String(value), name];
            }}
          />
          <Legend verticalAlign="top" wrapperStyle={{ fontSize: 11 }} />
          <Bar dataKey="positive" name="Positive" stackId="labels" fill="#059669" isAnimationActive={false} />
          <Bar dataKey="negative" name="Negative" stackId="labels" fill="#dc2626" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
