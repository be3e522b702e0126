import { describe, expect, it, vi } from "vitest";
import { isTypingTarget, shortcutFor, shortcutHelpEntries, type ShortcutMap } from "../src/hooks/use-shortcuts";

const element = (tagName: string, isContentEditable = false) => ({ tagName, isContentEditable }) as unknown as EventTarget;
const press = (key: string, extra: Partial<Pick<KeyboardEvent, "target" | "ctrlKey" | "altKey" | "metaKey">> = {}) => ({ key, target: element("BODY"), ctrlKey: false, altKey: false, metaKey: false, ...extra });

describe("keyboard shortcuts", () => {
  const next = vi.fn();
  const help = vi.fn();
  const map: ShortcutMap = {
    j: { description: "next / previous chunk", run: next },
    k: { description: "next / previous chunk", run: vi.fn() },
    ArrowDown: next,
    Enter: { description: "submit and take the next solution", run: vi.fn() },
    "?": { description: "show or hide this help", run: help },
  };

  it("calls the key's handler, plain functions included", () => {
    expect(shortcutFor(map, press("j"))).toBe(next);
    expect(shortcutFor(map, press("ArrowDown"))).toBe(next);
    expect(shortcutFor(map, press("?"))).toBe(help);
    expect(shortcutFor(map, press("x"))).toBeNull();
    // Only the map's own keys, not what every object has.
    expect(shortcutFor(map, press("toString"))).toBeNull();
  });

  it("leaves keys typed into inputs, textareas, selects and editable content alone", () => {
    for (const tag of ["INPUT", "TEXTAREA", "SELECT", "input"]) expect(isTypingTarget(element(tag))).toBe(true);
    expect(isTypingTarget(element("DIV", true))).toBe(true);
    for (const tag of ["BODY", "LI", "BUTTON", "A"]) expect(isTypingTarget(element(tag))).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
    expect(shortcutFor(map, press("j", { target: element("TEXTAREA") }))).toBeNull();
    expect(shortcutFor(map, press("j", { target: element("P", true) }))).toBeNull();
  });

  it("leaves the browser's and the system's key combinations alone", () => {
    expect(shortcutFor(map, press("j", { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(map, press("j", { metaKey: true }))).toBeNull();
    expect(shortcutFor(map, press("j", { altKey: true }))).toBeNull();
  });

  it("lists described keys in the map's order, one line per description, undescribed keys left out", () => {
    expect(shortcutHelpEntries(map)).toEqual([
      { keys: "j / k", description: "next / previous chunk" },
      { keys: "Enter", description: "submit and take the next solution" },
      { keys: "?", description: "show or hide this help" },
    ]);
  });
});
