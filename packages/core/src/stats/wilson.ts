/**
 * Wilson score interval for a binomial proportion: `successes` out of
 * `trials`, two-sided at 95 % (z = 1.959963984540054) unless told otherwise.
 * Unlike the normal ("Wald") interval it stays inside [0, 1] and does not
 * collapse to a point at 0 or n successes, so it is usable on the small
 * subsets a benchmark run often has. No trials: null (nothing was measured).
 *
 *   centre = (p̂ + z²/2n) / (1 + z²/n)
 *   half   = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²)
 */

export interface ProportionInterval {
  estimate: number;
  lower: number;
  upper: number;
  successes: number;
  trials: number;
}

/** z for 95 % two-sided coverage: the 0.975 quantile of the standard normal. */
export const Z_95 = 1.959963984540054;

export function wilsonInterval(successes: number, trials: number, z = Z_95): ProportionInterval | null {
  if (!Number.isInteger(trials) || trials < 0) throw new RangeError(`trials must be a non-negative integer, got ${trials}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > trials) {
    throw new RangeError(`successes must be an integer from 0 to trials (${trials}), got ${successes}`);
  }
  if (!(z > 0)) throw new RangeError(`z must be positive, got ${z}`);
  if (trials === 0) return null;
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const denominator = 1 + z2n;
  const centre = (p + z2n / 2) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  // Exact at the ends: 0 of n has lower 0, n of n has upper 1 (no rounding just beside them).
  return {
    estimate: p,
    lower: successes === 0 ? 0 : Math.max(0, centre - half),
    upper: successes === trials ? 1 : Math.min(1, centre + half),
    successes,
    trials,
  };
}
