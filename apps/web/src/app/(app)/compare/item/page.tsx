"use client";

import { Suspense } from "react";
import { ComparisonItem } from "./comparison-item";

export default function CompareItemPage() {
  return (
    <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
      <ComparisonItem />
    </Suspense>
  );
}
