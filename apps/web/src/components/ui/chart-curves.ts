/**
 * How charts draw measured points. Never a spline (monotone, basis, natural,
 * cardinal): a curve between two measurements invents values in between — a
 * Q-value curve would dip below a value no prefix had.
 */
export type MeasuredCurveType = "linear" | "stepAfter";

/** A series of per-point measurements (the Q after each chunk, a throughput sample): straight segments between visible dots. */
export function measuredLine() {
  return { type: "linear" as MeasuredCurveType, dot: { r: 2.5 }, activeDot: { r: 4 } };
}

/** A cumulative counter sampled over time (tokens spent so far), or a bar set by the previous point: a step held until the next sample. */
export function steppedLine() {
  return { type: "stepAfter" as MeasuredCurveType, dot: false as const };
}
