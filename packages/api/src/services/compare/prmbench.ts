import { averageCoverage, type MetricInterval } from "@stepwiser/core";
import type { Db, RunStatus } from "@stepwiser/db";
import { benchmarkSummarySchema, readSummary, tryReadRunConfig } from "@stepwiser/jobs";
import { comparableRun, FINISHED_STATUSES, type ComparableRun } from "./runs";

/*
 * PRMBench beside ProcessBench on the leaderboard. A PRMBench run (a benchmark on a PRMBench
 * import, `scoring: "prmbench"`) is scored by PRMScore; the first-error F1 its summary also
 * holds is a reading of each item's first error step, not ProcessBench's F1 on ProcessBench's
 * solutions, so it never fills the ProcessBench F1 column. Each compared run is set beside the
 * other benchmark's figure of the same judge (the same judge model): a ProcessBench run beside
 * the PRMScore of that judge's PRMBench run, a PRMBench run beside the average F1 of that
 * judge's ProcessBench run, each named with the run it comes from.
 */

/** The dataset source of a PRMBench import (`stepwiser import prmbench`). */
export const PRMBENCH_DATASET_SOURCE = "prmbench";

/** The run a figure of the same judge comes from. */
export interface SameJudgeRun {
  runId: string;
  name: string;
  datasetId: string;
  datasetName: string | null;
  /** The protocol it spoke (`id@vN` as recorded). */
  protocolRef: string;
}

export interface LeaderboardPrmbench {
  /** As the evaluator computes them (-1 for an undefined ratio); the intervals over items, null when the run stored none. */
  prmscore: number;
  f1: number;
  negativeF1: number;
  n: number;
  ci: MetricInterval | null;
  /** Null: the run's own score; otherwise the PRMBench run of the same judge it is read from. */
  from: SameJudgeRun | null;
}

export interface LeaderboardProcessBench {
  averageF1: number;
  ci: MetricInterval | null;
  subsetsInAverage: string[];
  averageIsPartial: boolean;
  /** The ProcessBench run of the same judge it is read from (its own summary's average). */
  from: SameJudgeRun;
}

export interface BenchmarkReadings {
  /** What the compared runs' dataset is scored as: PRMBench for a PRMBench import. */
  benchmark: "prmbench" | "processbench";
  runs: Array<{
    /** The run's PRMBench figures, or those of its judge's PRMBench run; null when there is none. */
    prmbench: LeaderboardPrmbench | null;
    /** On a PRMBench comparison: the average F1 of the same judge's ProcessBench run (never the run's own first-error reading); null otherwise. */
    sameJudgeProcessBench: LeaderboardProcessBench | null;
  }>;
}

/** Runs looked through for the same judge's other benchmark, newest first. */
const CANDIDATES = 500;

type Summary = NonNullable<ReturnType<typeof readBenchmarkSummary>>;
const readBenchmarkSummary = (summary: unknown) => readSummary(benchmarkSummarySchema, summary);

interface Candidate {
  run: ComparableRun;
  summary: Summary;
  datasetName: string | null;
  prmbench: boolean;
}

function prmbenchOf(summary: Summary, from: SameJudgeRun | null): LeaderboardPrmbench | null {
  const p = summary.prmbench;
  if (!p) return null;
  return { prmscore: p.prmscore, f1: p.f1, negativeF1: p.negative_f1, n: p.n, ci: p.ci95?.prmscore ?? null, from };
}

function sameJudgeRun(candidate: Candidate): SameJudgeRun {
  return { runId: candidate.run.id, name: candidate.run.name, datasetId: candidate.run.datasetId, datasetName: candidate.datasetName, protocolRef: candidate.run.protocolRef };
}

/** The newest candidate of the judge, one that spoke the same protocol first. */
function pick(candidates: readonly Candidate[], run: ComparableRun): Candidate | undefined {
  const mine = candidates.filter((c) => c.run.judgeModel === run.judgeModel);
  return mine.find((c) => c.run.protocol === run.protocol) ?? mine[0];
}

/**
 * For each compared run, in order: its PRMBench figures (its own, or its judge's PRMBench
 * run's) and, on a PRMBench comparison, its judge's ProcessBench average F1. Only finished
 * benchmark runs whose summary reads lend a figure.
 */
export async function benchmarkReadings(db: Db, runs: readonly ComparableRun[], datasetSource: string | null): Promise<BenchmarkReadings> {
  const benchmark = datasetSource === PRMBENCH_DATASET_SOURCE ? "prmbench" : "processbench";
  const ids = runs.map((r) => r.id);
  const [own, others] = await Promise.all([
    db.run.findMany({ where: { id: { in: ids } }, select: { id: true, summary: true } }),
    db.run.findMany({
      where: { kind: "benchmark", status: { in: [...FINISHED_STATUSES] as RunStatus[] }, id: { notIn: ids }, datasetId: { not: null } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: CANDIDATES,
      select: { id: true, kind: true, name: true, status: true, datasetId: true, createdAt: true, config: true, summary: true, dataset: { select: { name: true, source: true } } },
    }),
  ]);
  const candidates: Candidate[] = [];
  for (const row of others) {
    if (tryReadRunConfig(row) === null) continue;
    const summary = readBenchmarkSummary(row.summary);
    if (!summary) continue;
    const prmbench = summary.prmbench !== undefined;
    // A benchmark on a PRMBench import without PRMBench figures (stored before they were) is neither.
    if (!prmbench && row.dataset?.source === PRMBENCH_DATASET_SOURCE) continue;
    candidates.push({ run: comparableRun(row), summary, datasetName: row.dataset?.name ?? null, prmbench });
  }
  const prmbenchRuns = candidates.filter((c) => c.prmbench);
  const processBenchRuns = candidates.filter((c) => !c.prmbench);
  return {
    benchmark,
    runs: runs.map((run) => {
      const summary = run.kind === "benchmark" ? readBenchmarkSummary(own.find((r) => r.id === run.id)?.summary) : null;
      const ownPrmbench = summary ? prmbenchOf(summary, null) : null;
      const lent = ownPrmbench || run.judgeModel === null ? undefined : pick(prmbenchRuns, run);
      const sameJudge = benchmark === "prmbench" && run.judgeModel !== null ? pick(processBenchRuns, run) : undefined;
      return {
        prmbench: ownPrmbench ?? (lent ? prmbenchOf(lent.summary, sameJudgeRun(lent)) : null),
        sameJudgeProcessBench: sameJudge ? processBenchOf(sameJudge) : null,
      };
    }),
  };
}

function processBenchOf(candidate: Candidate): LeaderboardProcessBench {
  const { summary } = candidate;
  const coverage = averageCoverage(summary.subsets_in_average ?? Object.keys(summary.subsets));
  return {
    averageF1: summary.average_f1,
    ci: summary.average_f1_ci95 ?? null,
    subsetsInAverage: coverage.subsets_in_average,
    averageIsPartial: coverage.average_is_partial,
    from: sameJudgeRun(candidate),
  };
}
