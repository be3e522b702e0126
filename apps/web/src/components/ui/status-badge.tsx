import type { ReactNode } from "react";
import { cx } from "./cx";

const TONES: Record<string, string> = {
  queued: "bg-slate-100 text-slate-700",
  running: "bg-blue-100 text-blue-800",
  importing: "bg-blue-100 text-blue-800",
  completed: "bg-green-100 text-green-800",
  ready: "bg-green-100 text-green-800",
  completed_with_failures: "bg-amber-100 text-amber-800",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-slate-200 text-slate-700",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${TONES[status] ?? "bg-slate-100"}`}>
      {status.replaceAll("_", " ")}
    </span>
  );
}

/** A small grey tag beside a name: "blind", "archived", "revoked". */
export function Badge({ children, title, className }: { children: ReactNode; title?: string; className?: string }) {
  return (
    <span className={cx("rounded bg-slate-100 px-1.5 text-xs text-slate-600", className)} title={title}>
      {children}
    </span>
  );
}
