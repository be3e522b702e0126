import { createRng, sampleWithoutReplacement, shuffle, type Seed } from "../stats/random";

/**
 * Seeded choice of the solutions an annotation queue audits. Both samplers sort
 * their candidates by id first, so the result depends on the candidate set and
 * the seed alone, not on the order a database happened to return rows in: the
 * seed recorded with a queue reproduces its items.
 */

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `size` solutions drawn uniformly without replacement (all of them when fewer
 * exist), in the drawn order: the queue hands them out in that order, so an
 * annotator who stops early has still seen a uniform sample.
 */
export function sampleSolutionIds(ids: readonly string[], size: number, seed: Seed): string[] {
  if (!Number.isInteger(size) || size < 0) throw new RangeError(`sample size must be a non-negative integer, got ${size}`);
  const sorted = [...new Set(ids)].sort();
  return sampleWithoutReplacement(sorted, Math.min(size, sorted.length), createRng(seed));
}

export interface StratifiedCandidate {
  id: string;
  /** The stratum the solution belongs to, e.g. "negative" when some chunk was labelled Negative. */
  stratum: string;
}

export interface StratifiedSample {
  /** The drawn solutions, strata interleaved at random. */
  ids: string[];
  /** Per stratum: how many candidates it had and how many were drawn, strata in name order. */
  strata: Array<{ stratum: string; candidates: number; drawn: number }>;
}

/**
 * Up to `perStratum` solutions from every stratum, uniformly within each
 * (a stratum with fewer gives all of its solutions). The union is shuffled with
 * the same seeded stream, so the queue never hands out one stratum in a block
 * and an annotator cannot guess the model's label from the position.
 */
export function stratifiedSample(candidates: readonly StratifiedCandidate[], perStratum: number, seed: Seed): StratifiedSample {
  if (!Number.isInteger(perStratum) || perStratum < 0) {
    throw new RangeError(`perStratum must be a non-negative integer, got ${perStratum}`);
  }
  const groups = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const candidate of [...candidates].sort(byId)) {
    if (seen.has(candidate.id)) continue;
    seen.add(candidate.id);
    const group = groups.get(candidate.stratum) ?? [];
    group.push(candidate.id);
    groups.set(candidate.stratum, group);
  }
  // One stream, strata visited in name order: the draw is fixed by the seed.
  const rng = createRng(seed);
  const strata: StratifiedSample["strata"] = [];
  const drawn: string[] = [];
  for (const stratum of [...groups.keys()].sort()) {
    const group = groups.get(stratum)!;
    const picked = sampleWithoutReplacement(group, Math.min(perStratum, group.length), rng);
    drawn.push(...picked);
    strata.push({ stratum, candidates: group.length, drawn: picked.length });
  }
  return { ids: shuffle(drawn, rng), strata };
}
