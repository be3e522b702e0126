"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef } from "react";

/**
 * The page's URL search parameters and a way to change some of them. Changes
 * build on the latest requested URL, not this render's: two quick changes in a
 * row must not undo each other while the address bar catches up.
 */
export function useSearchParamsState() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const requested = useRef<string | null>(null);
  useEffect(() => {
    requested.current = null; // the address bar has caught up
  }, [params]);

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(requested.current ?? window.location.search);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    const query = next.toString();
    requested.current = query;
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  /** The parameters as last requested: this render's may not show a change the address bar has yet to catch up with. */
  const latest = () => new URLSearchParams(requested.current ?? window.location.search);
  return { params, update, latest };
}
