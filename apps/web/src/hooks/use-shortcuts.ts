"use client";

import { useEffect, useRef } from "react";

export type ShortcutHandler = (event: KeyboardEvent) => void;

export interface Shortcut {
  run: ShortcutHandler;
  /**
   * What the key does, as the shortcut help lists it. Keys with the same
   * description share one line ("j / k — next / previous chunk"); a key
   * without one works but is not listed (ArrowDown beside j).
   */
  description?: string;
}

/** Keys (`KeyboardEvent.key`: "j", "?", "Enter", "ArrowDown") to what they do. */
export type ShortcutMap = Readonly<Record<string, Shortcut | ShortcutHandler>>;

/**
 * Whether a key event belongs to something the user is typing into: an input,
 * a textarea, a select or editable content. Shortcuts leave those keys alone.
 */
export function isTypingTarget(target: EventTarget | null): boolean {
  const element = target as { tagName?: string; isContentEditable?: boolean } | null;
  if (!element || typeof element.tagName !== "string") return false;
  const tag = element.tagName.toUpperCase();
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || element.isContentEditable === true;
}

/** The handler a key event calls in `map`, or null: not while typing, nor with Ctrl, Alt or Meta held (the browser's and the system's keys). */
export function shortcutFor(map: ShortcutMap, event: Pick<KeyboardEvent, "key" | "target" | "ctrlKey" | "altKey" | "metaKey">): ShortcutHandler | null {
  if (event.ctrlKey || event.altKey || event.metaKey || isTypingTarget(event.target)) return null;
  if (!Object.hasOwn(map, event.key)) return null;
  const entry = map[event.key]!;
  return typeof entry === "function" ? entry : entry.run;
}

export interface ShortcutHelpEntry {
  /** "j / k", "Enter". */
  keys: string;
  description: string;
}

/** The help's lines: described keys in the map's order, keys with the same description joined on one line. */
export function shortcutHelpEntries(map: ShortcutMap): ShortcutHelpEntry[] {
  const lines: Array<{ keys: string[]; description: string }> = [];
  for (const [key, entry] of Object.entries(map)) {
    const description = typeof entry === "function" ? undefined : entry.description;
    if (!description) continue;
    const line = lines.find((l) => l.description === description);
    if (line) line.keys.push(key);
    else lines.push({ keys: [key], description });
  }
  return lines.map((line) => ({ keys: line.keys.join(" / "), description: line.description }));
}

/**
 * Page-wide keyboard shortcuts: each key of `map` runs its handler on
 * keydown, unless the user is typing (see `isTypingTarget`) or holds a
 * modifier. The latest map is used at each key press, so handlers may close
 * over the render's state; the listener is added once while `enabled`.
 */
export function useShortcuts(map: ShortcutMap, { enabled = true }: { enabled?: boolean } = {}) {
  const latest = useRef(map);
  useEffect(() => {
    latest.current = map;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => shortcutFor(latest.current, event)?.(event);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [enabled]);
}
