"use client";

import { useSyncExternalStore, type ReactNode } from "react";
import { readThemeChoice, storeThemeChoice, THEME_CHANGE_EVENT, THEME_CHOICES, THEME_STORAGE_KEY, type ThemeChoice } from "~/lib/theme";
import { cx } from "./cx";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

/** 14-pixel line icons in the text colour: a screen (follow the system), a sun, a moon. */
const ICONS: Record<ThemeChoice, ReactNode> = {
  system: (
    <>
      <rect x="2" y="3" width="12" height="8" rx="1" />
      <path d="M6 14h4M8 11v3" />
    </>
  ),
  light: (
    <>
      <circle cx="8" cy="8" r="3" />
      <path d="M8 1v2M8 13v2M1 8h2M13 8h2M3 3l1.4 1.4M11.6 11.6L13 13M3 13l1.4-1.4M11.6 4.4L13 3" />
    </>
  ),
  dark: <path d="M13.5 10A6 6 0 0 1 6 2.5a6 6 0 1 0 7.5 7.5z" />,
};

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
 * System / Light / Dark: the colour theme, remembered in this browser. `labels` shows the words beside the icons
 * (where there is room, as on the sign-in page); otherwise they are the buttons' accessible names and tooltips.
 * The server cannot know the stored choice, so its HTML shows System pressed and the browser corrects it on
 * hydration; the colours themselves are right from the first paint (the boot script in the root layout).
 */
export function ThemeToggle({ labels = false, className }: { labels?: boolean; className?: string }) {
  const choice = useSyncExternalStore(subscribe, readThemeChoice, () => "system" as const);
  return (
    <div role="group" aria-label="Colour theme" data-testid="theme-toggle" className={cx("inline-flex rounded border border-slate-300 text-xs", className)}>
      {THEME_CHOICES.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={choice === option}
          title={LABELS[option]}
          onClick={() => storeThemeChoice(option)}
          className={cx(
            "inline-flex items-center gap-1 px-1.5 py-1 first:rounded-l last:rounded-r",
            choice === option ? "bg-slate-800 text-white" : "bg-white text-slate-700 hover:bg-slate-100",
          )}
        >
          <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
            {ICONS[option]}
          </svg>
          <span className={labels ? undefined : "sr-only"}>{LABELS[option]}</span>
        </button>
      ))}
    </div>
  );
}
