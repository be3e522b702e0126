import { readSummary } from "../../runs/stored-config";
import type { RunResultColumns } from "../../runs/run-kind";
import { benchmarkSummarySchema } from "./summary";

/**
 * What the runs list ranks a benchmark run by, from its summary: a ProcessBench-scored
 * run's average F1 (partial or not, as the summary says), a PRMBench-scored run's
 * PRMScore (its first-error reading is not PRMBench's metric, so no F1 is ranked);
 * null where it scored nothing.
 */
export function benchmarkResultColumns(summary: unknown): Pick<RunResultColumns, "averageF1" | "prmscore"> {
  const read = readSummary(benchmarkSummarySchema, summary);
  if (!read) return { averageF1: null, prmscore: null };
  if (read.prmbench) return { averageF1: null, prmscore: read.prmbench.n > 0 ? read.prmbench.prmscore : null };
  const scored = Object.values(read.subsets).reduce((n, subset) => n + subset.n, 0);
  return { averageF1: scored > 0 ? read.average_f1 : null, prmscore: null };
}
