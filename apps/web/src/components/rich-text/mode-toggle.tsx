"use client";

import { RICH_TEXT_MODES, type RichTextMode } from "./rich-text";

const LABELS: Record<RichTextMode, string> = { rendered: "Rendered", raw: "Raw" };

/**
 * A controlled "Rendered / Raw" switch. The page owns the mode, so one switch
 * can drive every RichText on it: `<RichText mode={mode} … />`.
 */
export function RichTextModeToggle({
  mode,
  onModeChange,
  className,
}: {
  mode: RichTextMode;
  onModeChange: (mode: RichTextMode) => void;
  className?: string;
}) {
  return (
    <div role="group" aria-label="Text display" className={`inline-flex rounded border border-slate-300 text-xs ${className ?? ""}`}>
      {RICH_TEXT_MODES.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={mode === option}
          onClick={() => onModeChange(option)}
          className={`px-2 py-0.5 first:rounded-l last:rounded-r ${mode === option ? "bg-slate-800 text-white" : "bg-white text-slate-700 hover:bg-slate-100"}`}
        >
          {LABELS[option]}
        </button>
      ))}
    </div>
  );
}
