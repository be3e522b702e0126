import { wilsonInterval, type ProportionInterval } from "@stepwiser/core";
import { benchmarkSummarySchema, readSummary } from "./summaries";
import type { ResultRun } from "./run";

export interface BenchmarkSubsetResult {
  subset: string;
  n: number;
  nError: number;
  nCorrect: number;
  /** F1 of acc_err and acc_cor, with the summary's percentile-bootstrap 95 % interval over the subset's solutions (null when the summary has none). */
  f1: { estimate: number; lower: number | null; upper: number | null };
  /** Wilson 95 % intervals of the two accuracies; null for a class the subset has no solution of. */
  accErr: ProportionInterval | null;
  accCor: ProportionInterval | null;
}

/**
 * A benchmark run's ProcessBench scores per subset as its summary stored
 * them, with intervals: the summary's bootstrap interval for F1 and a Wilson
 * interval for each accuracy (hits recovered from the stored share and the
 * class's count: the share is hits / count, so rounding is exact).
 */
export function benchmarkResults(run: ResultRun) {
  const summary = readSummary(benchmarkSummarySchema, run.summary);
  const subsets: BenchmarkSubsetResult[] = summary
    ? Object.entries(summary.subsets).map(([subset, s]) => {
        const ci = summary.f1_ci95[subset];
        return {
          subset,
          n: s.n,
          nError: s.n_error,
          nCorrect: s.n_correct,
          f1: { estimate: s.f1, lower: ci?.lower ?? null, upper: ci?.upper ?? null },
          accErr: wilsonInterval(Math.round(s.acc_err * s.n_error), s.n_error),
          accCor: wilsonInterval(Math.round(s.acc_cor * s.n_correct), s.n_correct),
        };
      })
    : [];
  return {
    kind: "benchmark" as const,
    datasetId: run.datasetId,
    summary: summary && { protocol: summary.protocol ?? null, mode: summary.mode ?? null, judge: summary.judge ?? null, promptTemplateId: summary.promptTemplateId ?? null, averageF1: summary.average_f1, unparseable: summary.unparseable, missing: summary.missing },
    subsets,
  };
}
