import { describe, expect, it } from "vitest";
import { DARK_QUERY, isDarkTheme, parseThemeChoice, THEME_BOOT_SCRIPT, THEME_CHOICES, THEME_STORAGE_KEY, type ThemeChoice } from "~/lib/theme";

/** A page as far as the boot script sees it: storage, the colour-scheme media query, <html>'s classes and window events. */
function fakePage({ stored, systemDark, storageThrows = false }: { stored: string | null; systemDark: boolean; storageThrows?: boolean }) {
  const classes = new Set<string>();
  const mediaListeners: Array<() => void> = [];
  const windowListeners = new Map<string, Array<(event: { key: string | null }) => void>>();
  const storage = new Map<string, string>(stored === null ? [] : [[THEME_STORAGE_KEY, stored]]);
  const media = {
    matches: systemDark,
    addEventListener: (type: string, listener: () => void) => type === "change" && mediaListeners.push(listener),
  };
  const queries: string[] = [];
  const window = {
    matchMedia: (query: string) => {
      queries.push(query);
      return media;
    },
    addEventListener: (type: string, listener: (event: { key: string | null }) => void) => windowListeners.set(type, [...(windowListeners.get(type) ?? []), listener]),
  };
  const localStorage = {
    getItem: (key: string) => {
      if (storageThrows) throw new Error("SecurityError");
      return storage.get(key) ?? null;
    },
  };
  const document = {
    documentElement: {
      classList: {
        toggle: (name: string, force: boolean) => (force ? classes.add(name) : classes.delete(name)),
      },
    },
  };
  new Function("window", "localStorage", "document", THEME_BOOT_SCRIPT)(window, localStorage, document);
  return {
    dark: () => classes.has("dark"),
    queries,
    switchSystem(dark: boolean) {
      media.matches = dark;
      for (const listener of mediaListeners) listener();
    },
    storeInAnotherTab(value: string | null) {
      if (value === null) storage.delete(THEME_STORAGE_KEY);
      else storage.set(THEME_STORAGE_KEY, value);
      for (const listener of windowListeners.get("storage") ?? []) listener({ key: THEME_STORAGE_KEY });
    },
  };
}

describe("theme choice", () => {
  it("reads a stored value, following the system for anything else", () => {
    expect(["light", "dark", "system", null, undefined, "", "DARK", "sepia"].map(parseThemeChoice)).toEqual(["light", "dark", "system", "system", "system", "system", "system", "system"]);
  });

  it("is dark when chosen, or when the system is and the choice is System", () => {
    const table = THEME_CHOICES.flatMap((choice) => [false, true].map((system) => [choice, system, isDarkTheme(choice, system)] as const));
    expect(table).toEqual([
      ["system", false, false],
      ["system", true, true],
      ["light", false, false],
      ["light", true, false],
      ["dark", false, true],
      ["dark", true, true],
    ]);
  });
});

describe("the boot script in <head>", () => {
  it("makes the same decision as isDarkTheme for every stored value and system preference", () => {
    for (const stored of [null, "system", "light", "dark", "garbage"]) {
      for (const systemDark of [false, true]) {
        const page = fakePage({ stored, systemDark });
        expect(page.dark(), `stored ${stored}, system dark ${systemDark}`).toBe(isDarkTheme(parseThemeChoice(stored), systemDark));
        expect(page.queries).toEqual([DARK_QUERY]);
      }
    }
  });

  it("follows the system while the choice is System, and only then", () => {
    const following = fakePage({ stored: null, systemDark: false });
    following.switchSystem(true);
    expect(following.dark()).toBe(true);
    following.switchSystem(false);
    expect(following.dark()).toBe(false);

    const light = fakePage({ stored: "light", systemDark: false });
    light.switchSystem(true);
    expect(light.dark()).toBe(false);
  });

  it("applies a choice made in another tab", () => {
    const page = fakePage({ stored: null, systemDark: false });
    page.storeInAnotherTab("dark" satisfies ThemeChoice);
    expect(page.dark()).toBe(true);
    page.storeInAnotherTab(null);
    expect(page.dark()).toBe(false);
  });

  it("falls back to the system when storage cannot be read, instead of throwing before the page renders", () => {
    expect(fakePage({ stored: "light", systemDark: true, storageThrows: true }).dark()).toBe(true);
    expect(fakePage({ stored: "dark", systemDark: false, storageThrows: true }).dark()).toBe(false);
  });
});
