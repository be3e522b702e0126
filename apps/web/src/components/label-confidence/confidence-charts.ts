import { describeStoredLabelRule } from "@stepwiser/core";

/** One rule's histogram as the API returns it (dataset.overview's `confidence`, run.confidence's `histograms`). */
export interface ConfidenceHistogramInput {
  rule: string;
  paramsKey: string;
  /** Tenths of confidence in order, [0, 0.1) … [0.9, 1.0]. */
  bins: ReadonlyArray<{ from: number; to: number; count: number }>;
  /** Labels stored without a confidence. */
  noConfidence: number;
  labels: number;
}

export interface ConfidenceBar {
  /** Axis label: "0.0–0.1" … "0.9–1.0", and "none" for labels without a confidence. */
  bin: string;
  /** Labels in this tenth (0 on the "none" bar). */
  labels: number;
  /** Labels without a confidence (only on the "none" bar), a series of their own so they are drawn apart. */
  none: number;
}

export interface ConfidenceChart {
  /** Stable key: the stored rule and its parameters. */
  key: string;
  /** Readable rule, e.g. "rel-ratio(gamma=0.7)". */
  name: string;
  /** The ten tenths, then "none" when some label has no confidence. */
  bars: ConfidenceBar[];
  labels: number;
  noConfidence: number;
  /** The chart in words, for screen readers and for anyone who would rather read numbers. */
  summary: string;
}

/** Confidence at or above this counts as sure in the summary; below UNSURE as a coin flip or worse. */
export const SURE = 0.9;
export const UNSURE = 0.5;

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)} %`;
const count = (n: number, noun: string) => `${n.toLocaleString("en")} ${noun}${n === 1 ? "" : "s"}`;
const binLabel = (from: number, to: number) => `${from.toFixed(1)}–${to.toFixed(1)}`;

/** What one rule's histogram says, in a sentence or three. */
export function confidenceSummary(h: ConfidenceHistogramInput): string {
  const name = describeStoredLabelRule(h.rule, h.paramsKey);
  const rated = h.labels - h.noConfidence;
  const parts = [`${name}: ${count(h.labels, "label")}.`];
  if (rated === 0) {
    parts.push("None has a confidence.");
    return parts.join(" ");
  }
  const sure = h.bins.filter((b) => b.from >= SURE - 1e-9).reduce((n, b) => n + b.count, 0);
  const unsure = h.bins.filter((b) => b.to <= UNSURE + 1e-9).reduce((n, b) => n + b.count, 0);
  // The first of the fullest bins, so ties read the same every time.
  const fullest = h.bins.reduce((best, b) => (b.count > best.count ? b : best), h.bins[0]!);
  parts.push(
    `${count(sure, "label")} (${percent(sure, rated)} of those with a confidence) at ${SURE} or more, ${count(unsure, "label")} (${percent(unsure, rated)}) below ${UNSURE}, where the other label is the likelier;` +
      ` most in ${binLabel(fullest.from, fullest.to)} (${fullest.count.toLocaleString("en")}).`,
  );
  if (h.noConfidence > 0) parts.push(`${count(h.noConfidence, "label")} without a confidence.`);
  return parts.join(" ");
}

/** One small bar chart per rule and parameter setting, in the order given. */
export function confidenceCharts(histograms: readonly ConfidenceHistogramInput[]): ConfidenceChart[] {
  return histograms.map((h) => {
    const bars: ConfidenceBar[] = h.bins.map((b) => ({ bin: binLabel(b.from, b.to), labels: b.count, none: 0 }));
    if (h.noConfidence > 0) bars.push({ bin: "none", labels: 0, none: h.noConfidence });
    return {
      key: `${h.rule}|${h.paramsKey}`,
      name: describeStoredLabelRule(h.rule, h.paramsKey),
      bars,
      labels: h.labels,
      noConfidence: h.noConfidence,
      summary: confidenceSummary(h),
    };
  });
}
