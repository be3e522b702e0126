"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef } from "react";

export const COMPARE_TABS = ["metrics", "disagreements", "scaling", "calibration", "three-way"] as const;
export type CompareTab = (typeof COMPARE_TABS)[number];

/**
 * Everything a compare view shows lives in the URL, so any view is a link:
 * `/compare?dataset=…&runs=a,b&baseline=b&tab=metrics`. Tabs add their own
 * keys (disagreements: a, b, subset, gold, kind, page; scaling: draws;
 * calibration and three-way: judge, annotate, queue, rule, reference, bins, pattern).
 */
export function useCompareParams() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const requested = useRef<string | null>(null);
  useEffect(() => {
    requested.current = null; // the address bar has caught up
  }, [params]);

  const get = (key: string) => params.get(key)?.trim() || undefined;
  const runs = (get("runs") ?? "").split(",").map((r) => r.trim()).filter(Boolean);
  const tab = COMPARE_TABS.find((t) => t === get("tab")) ?? "metrics";
  const update = (changes: Record<string, string | undefined>) => {
    // Build on the latest requested URL, not this render's: quick successive changes must not undo each other.
    const next = new URLSearchParams(requested.current ?? window.location.search);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    const query = next.toString();
    requested.current = query;
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return { get, dataset: get("dataset"), runs, baseline: get("baseline"), tab, update };
}

export type CompareParams = ReturnType<typeof useCompareParams>;
