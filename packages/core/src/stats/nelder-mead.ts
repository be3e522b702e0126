/**
 * Nelder–Mead simplex minimisation (reflection 1, expansion 2, contraction ½,
 * shrink ½): derivative-free, deterministic, for small smooth problems such
 * as fitting a handful of distribution parameters.
 */
export function minimizeNelderMead(
  f: (x: readonly number[]) => number,
  start: readonly number[],
  options: { step?: number; maxIterations?: number; tolerance?: number } = {},
): { x: number[]; value: number; iterations: number } {
  const n = start.length;
  const step = options.step ?? 1;
  const maxIterations = options.maxIterations ?? 2000;
  const tolerance = options.tolerance ?? 1e-10;
  let simplex = [start.slice(), ...start.map((_, i) => start.map((v, j) => (i === j ? v + step : v)))].map((x) => ({ x, value: f(x) }));
  let iterations = 0;
  const combine = (a: readonly number[], b: readonly number[], t: number) => a.map((v, i) => v + t * (b[i]! - v));
  for (; iterations < maxIterations; iterations++) {
    simplex.sort((p, q) => p.value - q.value);
    const best = simplex[0]!;
    const worst = simplex[n]!;
    if (Math.abs(worst.value - best.value) <= tolerance * (Math.abs(best.value) + tolerance)) break;
    const centroid = Array.from({ length: n }, (_, i) => simplex.slice(0, n).reduce((sum, p) => sum + p.x[i]!, 0) / n);
    const reflected = combine(centroid, worst.x, -1);
    const reflectedValue = f(reflected);
    if (reflectedValue < best.value) {
      const expanded = combine(centroid, worst.x, -2);
      const expandedValue = f(expanded);
      simplex[n] = expandedValue < reflectedValue ? { x: expanded, value: expandedValue } : { x: reflected, value: reflectedValue };
      continue;
    }
    if (reflectedValue < simplex[n - 1]!.value) {
      simplex[n] = { x: reflected, value: reflectedValue };
      continue;
    }
    const outside = reflectedValue < worst.value;
    const contracted = combine(centroid, outside ? reflected : worst.x, 0.5);
    const contractedValue = f(contracted);
    if (contractedValue < (outside ? reflectedValue : worst.value)) {
      simplex[n] = { x: contracted, value: contractedValue };
      continue;
    }
    simplex = simplex.map((p, i) => (i === 0 ? p : { x: combine(best.x, p.x, 0.5), value: f(combine(best.x, p.x, 0.5)) }));
  }
  simplex.sort((p, q) => p.value - q.value);
  return { x: simplex[0]!.x, value: simplex[0]!.value, iterations };
}
