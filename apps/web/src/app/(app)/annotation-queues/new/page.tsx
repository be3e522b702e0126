"use client";

import { Suspense } from "react";
import { QueueForm } from "./queue-form";

export default function NewQueuePage() {
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold">New annotation queue</h1>
      <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
        <QueueForm />
      </Suspense>
    </div>
  );
}
