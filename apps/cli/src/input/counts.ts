import { UsageError } from "../usage-error";

/** One prefix's rollouts: `correct` of `rollouts` reached the right answer. */
export interface RolloutCount {
  correct: number;
  rollouts: number;
}

const ENTRY = /^\s*([^/\s]+)\s*\/\s*([^/\s]+)\s*$/;

/**
 * `--counts s0/m0,s1/m1,…,sk/mk`: the rollout counts of the bare problem (entry 1)
 * and of the prefix ending at each chunk. A bad entry is named by its position.
 */
export function countsFlag(flag: string, raw: string): RolloutCount[] {
  const counts = raw.split(",").map((entry, i): RolloutCount => {
    const refuse = (problem: string) => new UsageError(`--${flag} entry ${i + 1} "${entry}": ${problem}`);
    const match = ENTRY.exec(entry);
    const [correct, rollouts] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
    if (!Number.isFinite(correct) || !Number.isFinite(rollouts)) throw refuse("must be s/m, s correct of m rollouts, e.g. 12/16");
    if (correct < 0 || rollouts < 0) throw refuse("counts cannot be negative");
    if (!Number.isInteger(correct) || !Number.isInteger(rollouts)) throw refuse("counts must be whole numbers");
    if (rollouts === 0) throw refuse("a prefix needs at least one rollout");
    if (correct > rollouts) throw refuse(`${correct} correct is more than its ${rollouts} rollouts`);
    return { correct, rollouts };
  });
  if (counts.length < 2) {
    throw new UsageError(`--${flag} needs at least 2 entries, the bare problem and at least one chunk (s0/m0,s1/m1,…), got ${counts.length}`);
  }
  return counts;
}
