/**
 * Numbers of a run's results as they are read: shares as percentages with as
 * many digits as their size needs, counts with thousands separators, κ with
 * its sign, intervals in brackets. No React: unit-tested in apps/web/test.
 */

const COUNT = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A count: 12,345. */
export function count(value: number): string {
  return COUNT.format(value);
}

/** A mean or ratio that is not a share: 3 significant digits up to 1,000, then whole numbers (4.17, 27.5, 1,234). */
export function amount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  if (Math.abs(value) >= 1000) return count(value);
  return String(Number(value.toPrecision(3)));
}

/**
 * A share in [0, 1] as a percentage: one decimal (5.2 %), two significant
 * digits below 1 % (0.52 %, 0.052 %), exact 0 % and 100 % without decimals,
 * and never rounded up to 100 % or down to 0 % when it is not.
 */
export function percent(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return "—";
  const value = share * 100;
  if (value === 0 || value === 100) return `${value} %`;
  if (Math.abs(value) < 1) return `${Number(value.toPrecision(2))} %`;
  let text = value.toFixed(1);
  if (text === "100.0" && value < 100) text = "99.9";
  return `${text} %`;
}

/** Percentage points between two shares, signed: +3.1 pp, −0.4 pp, 0.0 pp. */
export function points(difference: number): string {
  const text = Math.abs(difference * 100).toFixed(1);
  if (text === "0.0") return "0.0 pp";
  return `${difference > 0 ? "+" : "−"}${text} pp`;
}

/** A share with its interval: 61.9 % [55.0, 68.2]. */
export function percentWithInterval(estimate: number, lower: number | null | undefined, upper: number | null | undefined): string {
  if (lower === null || lower === undefined || upper === null || upper === undefined) return percent(estimate);
  return `${percent(estimate)} [${(lower * 100).toFixed(1)}, ${(upper * 100).toFixed(1)}]`;
}

/** A coefficient in [−1, 1] (Cohen's κ) with two decimals and a true minus sign. */
export function coefficient(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const text = Math.abs(value).toFixed(2);
  return value < 0 && text !== "0.00" ? `−${text}` : text;
}

/** part of whole as "12 (4.0 %)"; the share is left out when the whole is 0. */
export function countWithShare(part: number, whole: number): string {
  return whole > 0 ? `${count(part)} (${percent(part / whole)})` : count(part);
}

/** What was used against what was estimated, as a signed relative difference: "+8.0 %", "−0.1 %", "0.0 %"; "—" without a usable estimate. */
export function againstEstimate(actual: number, estimate: number | null | undefined): string {
  if (estimate === null || estimate === undefined || !(estimate > 0)) return "—";
  const difference = actual / estimate - 1;
  const text = Math.abs(difference * 100).toFixed(1);
  if (text === "0.0") return "0.0 %";
  return `${difference > 0 ? "+" : "−"}${text} %`;
}
