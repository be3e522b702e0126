/**
 * "Did you mean": the known names nearest to a mistyped one. Pure; used for
 * unknown command-line flags and unknown configuration fields.
 */

/**
 * Optimal string alignment distance (Damerau-Levenshtein restricted to one edit
 * per substring): insertions, deletions, substitutions and transpositions of
 * two adjacent characters each cost 1. Compares UTF-16 code units.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Three rows suffice: the current, the previous, and the one before it (for transpositions).
  let before: number[] = new Array<number>(b.length + 1).fill(0);
  let previous: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current: number[] = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

export interface NearestNameOptions {
  /** Largest edit distance still suggested (default 2; never more than a third of the longer name, so short names need close typos). */
  maxDistance?: number;
  /** Suggestions returned at most (default 1). */
  limit?: number;
}

/**
 * The known names nearest to `given`, best first: those within the edit
 * distance (case-insensitive), and those `given` is a prefix of (at least two
 * characters: `--roll` for `--rollouts`) or that are a prefix of `given`
 * (`--rollouts8`). Ties go to the shorter distance, then to the order of `known`.
 * An exact match is not a suggestion. Empty when nothing is near.
 */
export function nearestNames(given: string, known: Iterable<string>, options: NearestNameOptions = {}): string[] {
  const maxDistance = options.maxDistance ?? 2;
  const limit = options.limit ?? 1;
  const wanted = given.toLowerCase();
  if (wanted.length === 0) return [];
  const scored: Array<{ name: string; score: number; order: number }> = [];
  let order = 0;
  for (const name of new Set(known)) {
    order += 1;
    const candidate = name.toLowerCase();
    if (name === given) continue;
    const distance = editDistance(wanted, candidate);
    const bound = Math.min(maxDistance, Math.max(1, Math.floor(Math.max(wanted.length, candidate.length) / 3)));
    const prefix = wanted.length >= 2 && (candidate.startsWith(wanted) || (candidate.length >= 2 && wanted.startsWith(candidate)));
    // A prefix match ranks after every close typo: "--rol" is nearer "--rollouts" than an unrelated name within distance.
    if (distance <= bound) scored.push({ name, score: distance, order });
    else if (prefix) scored.push({ name, score: maxDistance + 1, order });
  }
  scored.sort((x, y) => x.score - y.score || x.order - y.order);
  return scored.slice(0, limit).map((s) => s.name);
}

/** The one nearest known name, or undefined. */
export function nearestName(given: string, known: Iterable<string>, options: Omit<NearestNameOptions, "limit"> = {}): string | undefined {
  return nearestNames(given, known, { ...options, limit: 1 })[0];
}
