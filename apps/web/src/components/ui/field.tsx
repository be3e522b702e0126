import type { ReactNode } from "react";

/** The look of a text input or select inside a Field. */
export const formControl = "mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1";

export function Field({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="min-w-0 text-sm">
      <label className="block">
        <span className="block text-slate-700">{label}</span>
        {children}
      </label>
      {/* Outside the label, so the control's name is the label alone. */}
      {hint && <span className="mt-0.5 block text-xs text-slate-500">{hint}</span>}
    </div>
  );
}
