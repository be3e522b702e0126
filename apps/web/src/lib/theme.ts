/**
 * Light and dark mode. The palette lives in CSS (`app/globals.css`: the colours under `html.dark`); what is decided
 * here is whether `<html>` has the `dark` class: the visitor's choice (System, Light or Dark, kept in localStorage
 * under THEME_STORAGE_KEY) and, for System, the browser's `prefers-color-scheme`.
 */

export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export const THEME_STORAGE_KEY = "stepwiser-theme";
export const DARK_QUERY = "(prefers-color-scheme: dark)";
/** Sent on the window when this tab changes the choice (other tabs hear the `storage` event). */
export const THEME_CHANGE_EVENT = "stepwiser-theme-change";

/** A stored value as a choice; anything else (nothing stored, an old or tampered value) follows the system. */
export function parseThemeChoice(value: string | null | undefined): ThemeChoice {
  return value === "light" || value === "dark" ? value : "system";
}

export function isDarkTheme(choice: ThemeChoice, systemPrefersDark: boolean): boolean {
  return choice === "dark" || (choice === "system" && systemPrefersDark);
}

/**
 * Runs in `<head>` before the body is parsed, so the first paint already has the right colours: sets the class from
 * the stored choice and the system preference, and keeps it right when the system switches (while the choice is
 * System) or another tab changes the choice. Plain ES5 with no reference outside itself; the same decision as
 * `parseThemeChoice` + `isDarkTheme` (the unit test runs both).
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var k=${JSON.stringify(THEME_STORAGE_KEY)},m=window.matchMedia(${JSON.stringify(DARK_QUERY)});function a(){var c=null;try{c=localStorage.getItem(k)}catch(e){}var d=c==="dark"||(c!=="light"&&m.matches);document.documentElement.classList.toggle("dark",d)}a();m.addEventListener("change",a);window.addEventListener("storage",function(e){if(e.key===k||e.key===null)a()})}catch(e){}})();`;

/** The stored choice, in the browser ("system" when storage cannot be read). */
export function readThemeChoice(): ThemeChoice {
  try {
    return parseThemeChoice(window.localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return "system";
  }
}

/** Stores the choice, applies it to this page at once and tells this page's toggles (other tabs hear the `storage` event). */
export function storeThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === "system") window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage refused (private mode, quota): the choice still applies to this page.
  }
  document.documentElement.classList.toggle("dark", isDarkTheme(choice, window.matchMedia(DARK_QUERY).matches));
  window.dispatchEvent(new Event(THEME_CHANGE_EVENT));
}
