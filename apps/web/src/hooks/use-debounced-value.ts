"use client";

import { useEffect, useState } from "react";

/** `value` once it has stayed the same for `delayMs`: what a query keyed on typed input should follow. */
export function useDebouncedValue<T>(value: T, delayMs = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
