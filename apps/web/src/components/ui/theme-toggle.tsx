"use client";

import { useSyncExternalStore } from "react";
import { readThemeChoice, storeThemeChoice, THEME_CHANGE_EVENT, THEME_CHOICES, THEME_STORAGE_KEY, type ThemeChoice } from "~/lib/theme";
import { cx } from "./cx";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

function subscribe(onChange: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === THEME_STORAGE_KEY || event.key === null) onChange();
  };
  window.addEventListener("storage", onStorage);
  window.addEventListener(THEME_CHANGE_EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onStorage);
    window.removeEventListener(THEME_CHANGE_EVENT, onChange);
  };
}

/**
 * "System / Light / Dark": the colour theme, remembered in this browser. The server cannot know the stored choice,
 * so the server's HTML shows System pressed and the browser corrects it on hydration; the colours themselves are
 * already right from the first paint (the boot script in the root layout).
 */
export function ThemeToggle({ className }: { className?: string }) {
  const choice = useSyncExternalStore(subscribe, readThemeChoice, () => "system" as const);
  return (
    <div role="group" aria-label="Colour theme" data-testid="theme-toggle" className={cx("inline-flex rounded border border-slate-300 text-xs", className)}>
      {THEME_CHOICES.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={choice === option}
          onClick={() => storeThemeChoice(option)}
          className={cx("px-2 py-0.5 first:rounded-l last:rounded-r", choice === option ? "bg-slate-800 text-white" : "bg-white text-slate-700 hover:bg-slate-100")}
        >
          {LABELS[option]}
        </button>
      ))}
    </div>
  );
}
