"use client";

import { Suspense } from "react";
import { CompareView } from "./compare-view";

export default function ComparePage() {
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Compare checkpoints</h1>
      <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
        <CompareView />
      </Suspense>
    </div>
  );
}
