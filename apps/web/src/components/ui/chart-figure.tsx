"use client";

import type { ReactElement, ReactNode } from "react";
import { ResponsiveContainer } from "recharts";
import { Card } from "./card";
import { cx } from "./cx";

/**
 * One chart in a card: a caption above, the chart filling a box of the given
 * height (`h-52`, `h-64`) at full width. `label` names the figure for
 * assistive technology and tests; the caption defaults to it.
 */
export function ChartFigure({ label, caption, height, testId, children }: { label: string; caption?: ReactNode; height: string; testId?: string; children: ReactElement }) {
  return (
    <Card as="figure" padding="sm" aria-label={label} data-testid={testId}>
      <figcaption className="mb-1 text-xs font-semibold text-slate-600">{caption ?? label}</figcaption>
      <div className={cx("w-full", height)}>
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
    </Card>
  );
}
