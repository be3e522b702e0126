"use client";

import { useSearchParamsState } from "~/lib/url-state";

export const COMPARE_TABS = ["metrics", "disagreements", "scaling", "calibration", "three-way"] as const;
export type CompareTab = (typeof COMPARE_TABS)[number];

/**
 * Everything a compare view shows lives in the URL, so any view is a link:
 * `/compare?dataset=…&runs=a,b&baseline=b&tab=metrics`. Tabs add their own
 * keys (disagreements: a, b, subset, gold, kind, page; scaling: draws;
 * calibration and three-way: judge, annotate, queue, rule, reference, bins, pattern).
 */
export function useCompareParams() {
  const { params, update, latest } = useSearchParamsState();
  const get = (key: string) => params.get(key)?.trim() || undefined;
  const tab = COMPARE_TABS.find((t) => t === get("tab")) ?? "metrics";
  /** The dataset and runs as last requested, including a choice this render does not show yet. */
  const latestChoice = () => {
    const now = latest();
    return { dataset: now.get("dataset")?.trim() || undefined, runs: runList(now.get("runs")) };
  };
  return { get, dataset: get("dataset"), runs: runList(get("runs")), baseline: get("baseline"), tab, update, latestChoice };
}

function runList(value: string | null | undefined): string[] {
  return (value ?? "").split(",").map((r) => r.trim()).filter(Boolean);
}

export type CompareParams = ReturnType<typeof useCompareParams>;
