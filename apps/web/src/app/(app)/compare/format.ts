/** Scores as percentages with one decimal, as ProcessBench reports F1 (61.9, not 0.619). */
export function pct(value: number): string {
  return (value * 100).toFixed(1);
}

export function signedPct(value: number): string {
  const text = pct(value);
  return value > 0 ? `+${text}` : text === "-0.0" ? "0.0" : text;
}

export function intervalText(lower: number, upper: number, signed = false): string {
  const f = signed ? signedPct : pct;
  return `[${f(lower)}, ${f(upper)}]`;
}

/** A bootstrap p-value: 0 means no resample reached 0, so it is only below 1 / resamples. */
export function pValueText(p: number, resamples: number): string {
  if (p === 0) return `p < ${1 / resamples < 0.001 ? (1 / resamples).toExponential(0) : (1 / resamples).toString()}`;
  if (p < 0.001) return "p < 0.001";
  return `p = ${p.toFixed(3)}`;
}

/** Which way an interval of a difference points: only an interval excluding 0 is called either way. */
export function significance(lower: number, upper: number): "better" | "worse" | "none" {
  if (lower > 0) return "better";
  if (upper < 0) return "worse";
  return "none";
}

/** -1 reads "no error"; null "none" (unparseable or no prediction). */
export function firstErrorText(value: number | null | undefined): string {
  if (value === null || value === undefined) return "none";
  return value === -1 ? "no error" : `#${value}`;
}

