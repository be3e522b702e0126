import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * WCAG contrast of the colour pairs the pages use, in both themes, computed from the values the browser gets: the
 * light palette is Tailwind's (its theme.css), the dark one the overrides under `html.dark` in globals.css, and the
 * chart colours the `--chart-…` variables of both blocks.
 */

const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const globalsCss = readFileSync(path.join(webRoot, "src/app/globals.css"), "utf8");
const tailwindThemeCss = readFileSync(createRequire(path.join(webRoot, "package.json")).resolve("tailwindcss/theme.css"), "utf8");

/** The custom properties declared in the first rule with this selector. */
function declarations(css: string, selector: string): Map<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no "${selector}" rule`);
  const body = css.slice(start, css.indexOf("\n}", start));
  return new Map([...body.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

const tailwind = declarations(tailwindThemeCss, "@theme default");
const lightChart = declarations(globalsCss, ":root");
const dark = declarations(globalsCss, "html.dark");

type Rgb = [number, number, number];

/** Linear-light sRGB channels (0–1) of `#rrggbb` or `oklch(L% C H)`. */
function linearRgb(value: string): Rgb {
  const hex = /^#([0-9a-f]{6})$/i.exec(value);
  if (hex) {
    return [0, 2, 4].map((i) => {
      const channel = Number.parseInt(hex[1]!.slice(i, i + 2), 16) / 255;
      return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    }) as Rgb;
  }
  const oklch = /^oklch\(([\d.]+)%\s+([\d.]+)\s+([\d.]+)\)$/.exec(value);
  if (!oklch) throw new Error(`cannot read colour "${value}"`);
  const lightness = Number(oklch[1]) / 100;
  const chroma = Number(oklch[2]);
  const hue = (Number(oklch[3]) * Math.PI) / 180;
  const a = chroma * Math.cos(hue);
  const b = chroma * Math.sin(hue);
  // OKLab → LMS (cubed) → linear sRGB, Björn Ottosson's matrices; out-of-gamut channels clipped as a browser does.
  const l = (lightness + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (lightness - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (lightness - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const rgb: Rgb = [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ];
  return rgb.map((c) => Math.min(1, Math.max(0, c))) as Rgb;
}

function luminance(value: string): number {
  const [r, g, b] = linearRgb(value);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

type Theme = "light" | "dark";

/** A palette token (`slate-600`, `white`) or a chart variable (`chart-blue`) as the theme resolves it. */
function colour(theme: Theme, token: string): string {
  const name = `--${token.startsWith("chart-") ? token : `color-${token}`}`;
  const value = theme === "dark" ? dark.get(name) : token.startsWith("chart-") ? lightChart.get(name) : tailwind.get(name);
  if (!value) throw new Error(`${theme}: ${name} is not defined`);
  return value === "#fff" ? "#ffffff" : value;
}

/** Text on its background, as the pages pair them (foreground, background). */
const TEXT_PAIRS: Array<[string, string, string]> = [
  ["page text", "slate-900", "slate-50"],
  ["card text", "slate-900", "white"],
  ["secondary text on a card", "slate-500", "white"],
  ["secondary text on a card", "slate-600", "white"],
  ["secondary text on the page", "slate-600", "slate-50"],
  ["navigation", "slate-700", "white"],
  ["grey badge", "slate-600", "slate-100"],
  ["queued badge", "slate-700", "slate-100"],
  ["cancelled badge", "slate-700", "slate-200"],
  ["link", "blue-700", "white"],
  ["running badge", "blue-800", "blue-100"],
  ["accent button hovered", "blue-700", "blue-50"],
  ["primary button", "white", "blue-600"],
  ["dark button", "white", "slate-900"],
  ["pressed toggle", "white", "slate-800"],
  ["danger button", "red-700", "white"],
  ["error alert", "red-800", "red-50"],
  ["failed badge", "red-800", "red-100"],
  ["completed badge", "green-800", "green-100"],
  ["notice", "green-800", "green-50"],
  ["with failures badge", "amber-800", "amber-100"],
  ["warning", "amber-900", "amber-50"],
  ["diff: deleted words", "red-900", "red-100"],
  ["diff: inserted words", "green-900", "green-100"],
  ["diff: unchanged words", "slate-800", "white"],
  ["KaTeX error text", "red-700", "white"],
];

/** Chart marks on the card (WCAG's 3:1 for graphics), and tick labels (text, 4.5:1). */
const CHART_SERIES = ["chart-blue", "chart-red", "chart-green", "chart-amber", "chart-violet", "chart-cyan", "chart-pink", "chart-gray", "chart-slate"];

describe("colour conversion", () => {
  it("matches known values", () => {
    expect(contrast("#ffffff", "#000000")).toBeCloseTo(21, 5);
    expect(contrast("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    // Tailwind's slate-900 and blue-600 in OKLCH are #0f172a and #155dfc in sRGB.
    expect(luminance("oklch(20.8% 0.042 265.755)")).toBeCloseTo(luminance("#0f172a"), 3);
    expect(luminance("oklch(54.6% 0.245 262.881)")).toBeCloseTo(luminance("#155dfc"), 3);
  });
});

describe("dark palette", () => {
  it("redefines every shade of every hue the pages use, so no class is left with its light colour", () => {
    for (const hue of ["slate", "red", "rose", "amber", "green", "emerald", "blue"]) {
      for (const shade of [50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 950]) expect(dark.has(`--color-${hue}-${shade}`), `${hue}-${shade}`).toBe(true);
    }
    expect(dark.has("--color-white")).toBe(true);
    for (const name of lightChart.keys()) expect(dark.has(name), name).toBe(true);
  });

  it("makes the page and the cards dark and their text light", () => {
    expect(luminance(colour("dark", "slate-50"))).toBeLessThan(0.02);
    expect(luminance(colour("dark", "white"))).toBeLessThan(0.03);
    expect(luminance(colour("dark", "white"))).toBeGreaterThan(luminance(colour("dark", "slate-50")));
    expect(luminance(colour("dark", "slate-900"))).toBeGreaterThan(0.8);
  });

  it.each(TEXT_PAIRS)("%s (%s on %s) has a contrast of at least 4.5 in dark mode", (_, fg, bg) => {
    expect(contrast(colour("dark", fg), colour("dark", bg))).toBeGreaterThanOrEqual(4.5);
  });

  it.each(TEXT_PAIRS)("%s (%s on %s) has a contrast of at least 4.5 in light mode too", (_, fg, bg) => {
    expect(contrast(colour("light", fg), colour("light", bg))).toBeGreaterThanOrEqual(4.5);
  });
});

describe("chart colours", () => {
  it.each(["light", "dark"] as const)("every series stands out from the card by at least 3:1 (%s)", (theme) => {
    const card = theme === "dark" ? colour("dark", "white") : "#ffffff";
    for (const series of CHART_SERIES) expect(contrast(colour(theme, series), card), series).toBeGreaterThanOrEqual(3);
  });

  it.each(["light", "dark"] as const)("tick labels read as text on the card and the tooltip (%s)", (theme) => {
    const card = theme === "dark" ? colour("dark", "white") : "#ffffff";
    expect(contrast(colour(theme, "chart-axis"), card)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colour(theme, "chart-axis"), colour(theme, "chart-tooltip-background"))).toBeGreaterThanOrEqual(4.5);
    // The tooltip lists each series in its colour.
    for (const series of CHART_SERIES) expect(contrast(colour(theme, series), colour(theme, "chart-tooltip-background")), series).toBeGreaterThanOrEqual(3);
  });

  it("keeps the grid visible but quieter than the data", () => {
    const card = colour("dark", "white");
    const grid = contrast(colour("dark", "chart-grid"), card);
    expect(grid).toBeGreaterThan(1.2);
    for (const series of CHART_SERIES) expect(contrast(colour("dark", series), card)).toBeGreaterThan(grid);
  });
});
