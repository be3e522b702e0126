import { averageCoverage, PRMBENCH_CLASS_ORDER, PRMBENCH_CORRECT_CLASS, PRMBENCH_DIMENSIONS, PRMBENCH_F1_ONLY_CLASSES, prmbenchClass, processBenchIntervals, type MetricInterval, type ProcessBenchIntervals } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { benchmarkGold, readRunConfig } from "@stepwiser/jobs";
import { benchmarkSummarySchema, readSummary } from "./summaries";
import type { ResultRun } from "./run";
import type { z } from "zod";

/** A metric with its 95 % percentile-bootstrap interval over solutions; null ends when nothing gives one. */
export interface MetricWithInterval {
  estimate: number;
  lower: number | null;
  upper: number | null;
}

/** An accuracy with its interval and the counts it is the share of (hits of the class's solutions). */
export interface AccuracyWithInterval extends MetricWithInterval {
  hits: number;
  of: number;
}

export interface BenchmarkSubsetResult {
  subset: string;
  n: number;
  nError: number;
  nCorrect: number;
  f1: MetricWithInterval;
  /** Null for a class the subset has no solution of: its accuracy (0 by convention) measures nothing. */
  accErr: AccuracyWithInterval | null;
  accCor: AccuracyWithInterval | null;
}

/** One PRMBench figure: the evaluator's value (-1 where its ratio is undefined) with its interval over items. */
export type PrmbenchFigure = MetricWithInterval;

export interface PrmbenchFigures {
  prmscore: PrmbenchFigure;
  f1: PrmbenchFigure;
  negativeF1: PrmbenchFigure;
  /** Items scored. */
  n: number;
}

export interface PrmbenchClassResult extends PrmbenchFigures {
  /** The class as the data names it. */
  classification: string;
  /** PRMBench's abbreviation, name and dimension of the class; null for the all-correct items and for a class its tables do not have. */
  abbreviation: string | null;
  name: string | null;
  dimension: { id: string; name: string } | null;
  /** False for the all-correct items (`correct`): scored in their own class only, never in the totals. */
  inTotals: boolean;
  /** The class has no error step: PRMBench's tables score it by its F1 alone (its negative F1 is undefined). */
  f1Only: boolean;
}

/** A PRMBench run's own scores, as its summary stored them. */
export interface PrmbenchResults {
  totals: PrmbenchFigures;
  /** The evaluated classes in PRMBench's table order, then any other, the all-correct class last. */
  classes: PrmbenchClassResult[];
  /** Items judged whose output could not be read as step labels (left out, as the evaluator leaves out invalid outputs). */
  invalid: number;
  /** Items not judged (left out). */
  missing: number;
}

type SimulatorExpectation = NonNullable<z.output<typeof benchmarkSummarySchema>["simulatorExpectation"]>;
type StoredPrmbench = NonNullable<z.output<typeof benchmarkSummarySchema>["prmbench"]>;

/** Where a class sits: PRMBench's table order, then classes its tables do not have, the all-correct items last. */
function classOrder(classification: string): number {
  if (classification === PRMBENCH_CORRECT_CLASS) return PRMBENCH_CLASS_ORDER.length + 1;
  const known = (PRMBENCH_CLASS_ORDER as readonly string[]).indexOf(classification);
  return known === -1 ? PRMBENCH_CLASS_ORDER.length : known;
}

/** A PRMBench summary block as the results view reads it: figures with intervals, classes with their paper names. */
export function prmbenchResults(stored: StoredPrmbench): PrmbenchResults {
  const figures = (f: { prmscore: number; f1: number; negative_f1: number; n: number }, ci: Record<"prmscore" | "f1" | "negative_f1", MetricInterval> | null | undefined): PrmbenchFigures => ({
    prmscore: { estimate: f.prmscore, lower: ci?.prmscore.lower ?? null, upper: ci?.prmscore.upper ?? null },
    f1: { estimate: f.f1, lower: ci?.f1.lower ?? null, upper: ci?.f1.upper ?? null },
    negativeF1: { estimate: f.negative_f1, lower: ci?.negative_f1.lower ?? null, upper: ci?.negative_f1.upper ?? null },
    n: f.n,
  });
  const classes = Object.keys(stored.by_class)
    .sort((a, b) => classOrder(a) - classOrder(b) || a.localeCompare(b))
    .map((classification): PrmbenchClassResult => {
      const known = prmbenchClass(classification);
      return {
        classification,
        abbreviation: known?.abbreviation ?? null,
        name: known?.name ?? null,
        dimension: known ? { id: known.dimension, name: PRMBENCH_DIMENSIONS[known.dimension] } : null,
        inTotals: classification !== PRMBENCH_CORRECT_CLASS,
        f1Only: PRMBENCH_F1_ONLY_CLASSES.has(classification),
        ...figures(stored.by_class[classification]!, stored.by_class_ci95[classification]),
      };
    });
  return { totals: figures(stored, stored.ci95), classes, invalid: stored.invalid, missing: stored.missing };
}

/**
 * A benchmark run's ProcessBench scores per subset and on average as its
 * summary stored them, each with its 95 % percentile-bootstrap interval over
 * solutions (`processBenchIntervals`: per subset within the subset; the average
 * stratified by subset): the same method, stream and numbers Compare gives for
 * the run on the same gold with the same resamples and seed. A summary written
 * before the accuracy and average intervals were stored gets them recomputed
 * from the run's stored predictions, exactly as its summary would now compute
 * them (`intervals: "recomputed"`), and the subsets of its average derived from
 * its per-subset scores.
 */
export async function benchmarkResults(db: Db, run: ResultRun) {
  const summary = readSummary(benchmarkSummarySchema, run.summary);
  if (!summary) return { kind: "benchmark" as const, datasetId: run.datasetId, summary: null, subsets: [] as BenchmarkSubsetResult[], prmbench: null as PrmbenchResults | null, simulatorExpectation: null as SimulatorExpectation | null };
  const stored = summary.acc_err_ci95 !== undefined && summary.acc_cor_ci95 !== undefined && summary.average_f1_ci95 !== undefined;
  const intervals: ProcessBenchIntervals = stored
    ? { f1_ci95: summary.f1_ci95, acc_err_ci95: summary.acc_err_ci95!, acc_cor_ci95: summary.acc_cor_ci95!, average_f1_ci95: summary.average_f1_ci95 ?? null }
    : await recomputedIntervals(db, run);
  const coverage = averageCoverage(summary.subsets_in_average ?? Object.keys(summary.subsets));
  const withInterval = (estimate: number, ci: MetricInterval | null | undefined): MetricWithInterval => ({ estimate, lower: ci?.lower ?? null, upper: ci?.upper ?? null });
  // The hits are share × count (the share is hits / count, so rounding recovers them exactly).
  const accuracy = (share: number, of: number, ci: MetricInterval | undefined): AccuracyWithInterval | null => (of === 0 ? null : { ...withInterval(share, ci), hits: Math.round(share * of), of });
  const subsets: BenchmarkSubsetResult[] = Object.entries(summary.subsets).map(([subset, s]) => ({
    subset,
    n: s.n,
    nError: s.n_error,
    nCorrect: s.n_correct,
    f1: withInterval(s.f1, intervals.f1_ci95[subset]),
    accErr: accuracy(s.acc_err, s.n_error, intervals.acc_err_ci95[subset]),
    accCor: accuracy(s.acc_cor, s.n_correct, intervals.acc_cor_ci95[subset]),
  }));
  return {
    kind: "benchmark" as const,
    datasetId: run.datasetId,
    summary: {
      protocol: summary.protocol ?? null,
      mode: summary.mode ?? null,
      judge: summary.judge ?? null,
      promptTemplateId: summary.promptTemplateId ?? null,
      averageF1: withInterval(summary.average_f1, intervals.average_f1_ci95),
      subsetsInAverage: coverage.subsets_in_average,
      averageIsPartial: coverage.average_is_partial,
      /** Where the intervals come from: the stored summary, or recomputed from the stored predictions for a summary that predates them. */
      intervals: stored ? ("summary" as const) : ("recomputed" as const),
      unparseable: summary.unparseable,
      missing: summary.missing,
      /** The judge's outputs, truncated apart from unparseable; null for a summary written before they were counted. */
      judgeOutputs: summary.judgeOutputs ?? null,
      /** Solutions scored in all: 0 means the scores were computed over nothing (a run stored before empty runs were refused). */
      scored: Object.values(summary.subsets).reduce((n, s) => n + s.n, 0),
    },
    /** The first-error scores per subset (ProcessBench's metric); on a PRMBench run a reading of each item's first error step only, not PRMBench's metric. */
    subsets,
    /** A PRMBench run's PRMScore, F1 and negative F1 (totals and per class, with intervals); null for a ProcessBench run. */
    prmbench: summary.prmbench ? prmbenchResults(summary.prmbench) : null,
    /** A built-in simulated judge's expected figures on these solutions, from its configured per-chunk accuracy; null for any other judge. */
    simulatorExpectation: summary.simulatorExpectation ?? null,
  };
}

/** The intervals a summary written before they were stored would hold now: the run's gold and predictions, its resamples and seed. */
async function recomputedIntervals(db: Db, run: ResultRun): Promise<ProcessBenchIntervals> {
  const config = readRunConfig({ id: run.id, kind: "benchmark", config: run.config });
  const { gold, predictions } = await benchmarkGold(db, run.id, config);
  return processBenchIntervals(gold, predictions, config.bootstrap);
}
