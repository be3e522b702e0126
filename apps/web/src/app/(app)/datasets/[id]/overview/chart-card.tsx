"use client";

import type { ReactNode } from "react";
import { Card, ErrorAlert, Select } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";

/**
 * A titled card for one overview plot. All plots come from one request, so
 * every card shows that request's loading and error state itself: the page
 * keeps its layout while the data arrives.
 */
export function ChartCard({
  title,
  description,
  loading,
  error,
  emptyText,
  controls,
  children,
}: {
  title: string;
  description?: string;
  loading: boolean;
  error: unknown;
  /** Shown instead of the chart when set: there is nothing to plot yet. */
  emptyText?: string | null;
  controls?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <Card as="section" aria-label={title} className="flex min-w-0 flex-col gap-2 text-sm">
      <div className="flex flex-wrap items-start gap-x-3 gap-y-1">
        <div className="min-w-0 flex-1">
          <h2 className="font-semibold">{title}</h2>
          {description && <p className="text-xs text-slate-500">{description}</p>}
        </div>
        {!loading && !error && !emptyText && controls}
      </div>
      {error ? (
        <ErrorAlert>{errorMessage(error)}</ErrorAlert>
      ) : loading ? (
        <p className="text-slate-500">Loading…</p>
      ) : emptyText ? (
        <p className="text-slate-500">{emptyText}</p>
      ) : (
        children
      )}
    </Card>
  );
}

/** A compact picker for cards that show one of several runs or segmentation methods. */
export function CardSelect({ label, value, options, onChange }: { label: string; value: string; options: { value: string; label: string }[]; onChange: (value: string) => void }) {
  return (
    <label className="flex items-center gap-2 text-xs text-slate-600">
      <span>{label}</span>
      <Select inline compact className="max-w-64 text-slate-900" value={value} onChange={(e) => onChange(e.target.value)} options={options} />
    </label>
  );
}
