/**
 * The colours charts draw with, as CSS variables defined for both themes in `app/globals.css` (`--chart-…`): a
 * series keeps its name (blue, red…) and reads well on the light and on the dark card. recharts passes them on as
 * SVG attributes and inline styles, where `var()` resolves like anywhere else.
 */
export const CHART_COLORS = {
  grid: "var(--chart-grid)",
  blue: "var(--chart-blue)",
  red: "var(--chart-red)",
  green: "var(--chart-green)",
  amber: "var(--chart-amber)",
  violet: "var(--chart-violet)",
  cyan: "var(--chart-cyan)",
  pink: "var(--chart-pink)",
  gray: "var(--chart-gray)",
  slate: "var(--chart-slate)",
  /** Reference lines and "none" bars: present but quiet. */
  muted: "var(--chart-muted)",
  /** Area fills under a stroke of the same hue. */
  fillSlate: "var(--chart-fill-slate)",
  fillBlue: "var(--chart-fill-blue)",
} as const;

/** Series of one chart in order (several runs, several checkpoints). */
export const SERIES_COLORS = [CHART_COLORS.blue, CHART_COLORS.red, CHART_COLORS.green, CHART_COLORS.amber, CHART_COLORS.violet, CHART_COLORS.cyan, CHART_COLORS.pink, CHART_COLORS.gray];
