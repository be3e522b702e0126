/**
 * What a ProcessBench average is over. The benchmark's reported average is the
 * unweighted mean of the F1s of its four subsets; a mean over fewer of them, or
 * over any other subset, is a partial average: a different number, which must
 * say so wherever it is shown and is never set in a column beside published
 * four-subset averages (spec §4).
 */

/** ProcessBench's four subsets, sorted as every score sorts its subsets. */
export const PROCESSBENCH_SUBSETS = ["gsm8k", "math", "olympiadbench", "omnimath"] as const;
export type ProcessBenchSubset = (typeof PROCESSBENCH_SUBSETS)[number];

const OFFICIAL: ReadonlySet<string> = new Set(PROCESSBENCH_SUBSETS);

export function isProcessBenchSubset(name: string): name is ProcessBenchSubset {
  return OFFICIAL.has(name);
}

/** Which subsets an average is over, as summaries and the command line store it. */
export interface AverageCoverage {
  /** The subsets averaged, sorted (`localeCompare`, the order of a score's subsets). */
  subsets_in_average: string[];
  /** True unless the average is over exactly ProcessBench's four subsets. */
  average_is_partial: boolean;
}

function sortedSubsets(subsets: Iterable<string>): string[] {
  const list = [...subsets];
  if (new Set(list).size !== list.length) throw new RangeError(`a subset is listed twice: ${list.join(", ")}`);
  return list.sort((a, b) => a.localeCompare(b));
}

/** Partial: fewer than the four official subsets, or any subset that is not one of them. */
export function isPartialAverage(subsets: Iterable<string>): boolean {
  const list = sortedSubsets(subsets);
  return !(list.length === PROCESSBENCH_SUBSETS.length && list.every(isProcessBenchSubset));
}

/** The coverage of an average over `subsets` (any order; each once). */
export function averageCoverage(subsets: Iterable<string>): AverageCoverage {
  const list = sortedSubsets(subsets);
  return { subsets_in_average: list, average_is_partial: isPartialAverage(list) };
}

/**
 * How an average over `subsets` is named wherever it is shown:
 * "average (4 of 4 subsets)" for ProcessBench's own, otherwise
 * "partial average (2 of 4 subsets: gsm8k, math)", and with a subset that is not
 * ProcessBench's, "partial average (2 subsets: math, sim; 1 of ProcessBench's 4)".
 */
export function averageLabel(subsets: Iterable<string>): string {
  const list = sortedSubsets(subsets);
  const official = list.filter(isProcessBenchSubset).length;
  const total = PROCESSBENCH_SUBSETS.length;
  if (!isPartialAverage(list)) return `average (${total} of ${total} subsets)`;
  if (list.length === 0) return `partial average (0 of ${total} subsets)`;
  if (official === list.length) return `partial average (${official} of ${total} subsets: ${list.join(", ")})`;
  return `partial average (${list.length} subset${list.length === 1 ? "" : "s"}: ${list.join(", ")}; ${official} of ProcessBench's ${total})`;
}

/**
 * A stored ProcessBench score (a benchmark run's summary, `processbench score`'s
 * output) with its coverage: one written before `subsets_in_average` existed gets
 * it, and `average_is_partial`, derived from its per-subset scores. Anything
 * else (no `subsets` object, or the fields already there) is returned as it is.
 */
export function withAverageCoverage<T>(score: T): T | (T & AverageCoverage) {
  if (score === null || typeof score !== "object" || Array.isArray(score)) return score;
  const { subsets, subsets_in_average } = score as { subsets?: unknown; subsets_in_average?: unknown };
  if (subsets_in_average !== undefined || subsets === null || typeof subsets !== "object" || Array.isArray(subsets)) return score;
  return { ...score, ...averageCoverage(Object.keys(subsets)) };
}
