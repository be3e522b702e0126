import type { ReactNode } from "react";
import { cx } from "./cx";

export interface ControlStyle {
  /** Inline controls sit in a row of text (a table cell, a toolbar); the default fills its field under the label. */
  inline?: boolean;
  /** Extra-small text, for pickers inside cards and toolbars. */
  compact?: boolean;
}

/** The look of a text input, textarea or select. */
export function controlClass({ inline = false, compact = false }: ControlStyle = {}, className?: string): string {
  return cx(
    "rounded border border-slate-300 bg-white px-2 py-1 disabled:bg-slate-100 disabled:text-slate-500",
    compact && "text-xs",
    !inline && "mt-1 w-full",
    className,
  );
}

/**
 * A labelled control: the label above, the control (an `Input`, `Select`,
 * `Textarea`, or a file input) inside the label, and a hint below it.
 */
export function Field({ label, hint, className, children }: { label: ReactNode; hint?: ReactNode; className?: string; children: ReactNode }) {
  return (
    <div className={cx("min-w-0 text-sm", className)}>
      <label className="block">
        <span className="block text-slate-700">{label}</span>
        {children}
      </label>
      {/* Outside the label, so the control's name is the label alone. */}
      {hint && <span className="mt-0.5 block text-xs text-slate-500">{hint}</span>}
    </div>
  );
}
