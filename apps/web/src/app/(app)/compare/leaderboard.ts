/**
 * The metrics tab as a leaderboard: the measured runs ranked by their average F1
 * (named a partial average unless over ProcessBench's four subsets) or, on a PRMBench
 * import, by their PRMScore; each run beside the other benchmark's figure of the same
 * judge (a ProcessBench run beside its judge's PRMBench PRMScore, a PRMBench run beside
 * its judge's ProcessBench F1, each named with the run it comes from): a PRMBench run's
 * own first-error reading never fills the ProcessBench F1 column. Below them, apart and
 * in tables of their own, the ProcessBench F1s and the PRMBench PRMScores published
 * elsewhere (not measured here). Free of React so the shaping can be tested alone.
 */
import {
  averageCoverage,
  averageLabel,
  JUDGE_PROTOCOLS,
  PRMBENCH_CLASS_ORDER,
  PRMBENCH_CLASSES,
  PROCESSBENCH_SUBSETS,
  PUBLISHED_PRMBENCH_SOURCE_DETAILS,
  type AverageCoverage,
  type JudgeProtocolId,
  type ProcessBenchSubset,
  type PublishedPrmbenchScore,
  type PublishedProcessBenchF1,
  type PublishedSubsetF1,
} from "@stepwiser/core";
import type { RouterOutputs } from "@stepwiser/api";
import { pct } from "./format";

/** What the compared runs are scored as (the dataset: a PRMBench import or not). */
export type LeaderboardBenchmark = "processbench" | "prmbench";

/** The run a figure of the same judge is read from, as the API names it. */
export type SameJudgeRun = NonNullable<RouterOutputs["compare"]["checkpoints"]["runs"][number]["sameJudgeProcessBench"]>["from"];

export interface MeasuredInput {
  id: string;
  isBaseline: boolean;
  protocol: { label: string; ref: string; template?: string | null };
  average: { f1: number; ci: { f1: { lower: number; upper: number } } };
  /** The run's own PRMBench figures (`from` null), or those of its judge's PRMBench run. */
  prmbench?: { prmscore: number; f1: number; negativeF1: number; n: number; ci: { lower: number; upper: number } | null; from: SameJudgeRun | null } | null;
  /** Its judge is a model of the built-in simulated cluster. */
  simulatedJudge?: boolean;
  /** On a PRMBench comparison: the average F1 of its judge's ProcessBench run. */
  sameJudgeProcessBench?: { averageF1: number; ci: { lower: number; upper: number } | null; subsetsInAverage: string[]; averageIsPartial: boolean; from: SameJudgeRun } | null;
}

export interface MeasuredRow {
  id: string;
  /** 1 = best; runs with the same value share a rank; null: not ranked (a PRMBench run without a defined PRMScore of its own). */
  rank: number | null;
  isBaseline: boolean;
  protocolLabel: string;
  protocolRef: string;
  /** The prompt template the run asked with, where its protocol has one of ours. */
  template: string | null;
  /** What the row is ranked by, as a fraction: its average F1, or on a PRMBench comparison its own PRMScore. */
  value: number | null;
  /** The ProcessBench F1 column: the run's own average F1, or on a PRMBench comparison its judge's ProcessBench run's (named); null when there is none. */
  processBench: { averageF1: number; ci: { lower: number; upper: number } | null; partial: boolean; from: SameJudgeRun | null } | null;
  /** The PRMBench PRMScore column: the run's own (PRMBench runs) or its judge's PRMBench run's (named); null when there is none. */
  prmbench: { prmscore: number; defined: boolean; ci: { lower: number; upper: number } | null; from: SameJudgeRun | null } | null;
  /** Its judge is a model of the built-in simulated cluster (marked in the table, explained under it). */
  simulated: boolean;
}

/** What the leaderboard says under its table when a ranked run's judge is simulated; null when none is. */
export function simulatedJudgeNote(rows: readonly MeasuredRow[]): string | null {
  if (!rows.some((row) => row.simulated)) return null;
  return (
    "Runs marked “simulated” are judged by a model of the built-in simulated cluster. It knows each chunk's truth and answers rightly with a configured probability, independently per chunk, " +
    "so its F1 follows from that setting and the solutions' lengths (a correct solution counts only if every chunk is judged Positive): a benchmark run's page shows the figures the setting predicts beside the measured ones. " +
    "They test the studio's plumbing and say nothing about a real judge."
  );
}

/**
 * The runs ranked best first; equal values keep the order they were picked in and share a rank.
 * A ProcessBench comparison ranks by average F1; a PRMBench comparison by each run's own
 * PRMScore (a PRMScore computed from an undefined F1 or F1_neg, −1, is no score: unranked, last).
 */
export function measuredLeaderboard(runs: readonly MeasuredInput[], benchmark: LeaderboardBenchmark = "processbench"): MeasuredRow[] {
  const shaped = runs.map((run, order) => {
    const p = run.prmbench ?? null;
    const prmbench = p && { prmscore: p.prmscore, defined: p.f1 !== -1 && p.negativeF1 !== -1 && p.prmscore !== -1, ci: p.ci, from: p.from };
    const sameJudge = run.sameJudgeProcessBench ?? null;
    const processBench =
      benchmark === "processbench"
        ? { averageF1: run.average.f1, ci: run.average.ci.f1, partial: false, from: null }
        : sameJudge && { averageF1: sameJudge.averageF1, ci: sameJudge.ci, partial: sameJudge.averageIsPartial, from: sameJudge.from };
    const value = benchmark === "processbench" ? run.average.f1 : prmbench && prmbench.from === null && prmbench.defined ? prmbench.prmscore : null;
    return { run, order, value, processBench, prmbench };
  });
  const sorted = [...shaped].sort((a, b) => (a.value === null ? (b.value === null ? a.order - b.order : 1) : b.value === null ? -1 : b.value - a.value || a.order - b.order));
  const rows: MeasuredRow[] = [];
  sorted.forEach(({ run, value, processBench, prmbench }, i) => {
    const previous = rows[i - 1];
    const rank = value === null ? null : previous && previous.value === value ? previous.rank : i + 1;
    rows.push({ id: run.id, rank, isBaseline: run.isBaseline, protocolLabel: run.protocol.label, protocolRef: run.protocol.ref, template: run.protocol.template ?? null, value, processBench, prmbench, simulated: run.simulatedJudge ?? false });
  });
  return rows;
}

/** The leaderboard's caption and what its two score columns are headed, for what the runs are scored as. */
export function leaderboardColumns(benchmark: LeaderboardBenchmark, coverage: AverageCoverage): { caption: string; f1Heading: string; f1Partial: boolean; prmscoreHeading: string } {
  if (benchmark === "prmbench") {
    return {
      caption: "Leaderboard: PRMBench PRMScore",
      f1Heading: "ProcessBench F1 of the same judge (its ProcessBench run)",
      f1Partial: false,
      prmscoreHeading: "PRMScore (95 % CI)",
    };
  }
  const average = measuredAverageHeading(coverage);
  return { caption: "Leaderboard: average F1", f1Heading: `${average.heading} (95 % CI)`, f1Partial: average.partial, prmscoreHeading: "PRMBench PRMScore of the same judge (its PRMBench run)" };
}

/** The run a figure is read from, in a line: its name and its dataset. */
export function sameJudgeText(from: SameJudgeRun): string {
  return `from ${from.name} on ${from.datasetName ?? from.datasetId}`;
}

/** A measured F1 in the leaderboard's text: "61.9"; "—" where the row has none. */
export const measuredF1Text = (row: MeasuredRow): string => (row.processBench ? pct(row.processBench.averageF1) : "—");

/** A PRMScore in the leaderboard's text: "61.9 [55.0, 68.2]"; one computed from the evaluator's −1 as undefined; "—" where there is none. */
export function prmscoreCellText(row: MeasuredRow): string {
  const p = row.prmbench;
  if (!p) return "—";
  if (!p.defined) return "undefined (−1)";
  // A negative bound comes from resamples where F1 or F1_neg is undefined (−1).
  const bound = (value: number) => (value < 0 ? "undefined" : pct(value));
  return p.ci ? `${pct(p.prmscore)} [${bound(p.ci.lower)}, ${bound(p.ci.upper)}]` : pct(p.prmscore);
}

/**
 * The heading of the measured average column: ProcessBench's average only over its
 * four subsets; otherwise a partial average, named with what it is over, so it is
 * never read as the figure the published rows give.
 */
export function measuredAverageHeading(coverage: AverageCoverage): { heading: string; partial: boolean } {
  return coverage.average_is_partial
    ? { heading: `Partial average F1 ${averageLabel(coverage.subsets_in_average).replace(/^partial average /, "")}`, partial: true }
    : { heading: "Average F1 (4 of 4 subsets)", partial: false };
}

/**
 * What the scaling tab's F1 is: each run's average over its own gold's subsets (mean
 * over draws), so it is named like the leaderboard's when every curve has the same
 * subsets, and as each run's own partial-or-not average otherwise.
 */
export function scalingAverageName(subsetsPerCurve: ReadonlyArray<readonly string[]>): string {
  const lists = subsetsPerCurve.map((subsets) => averageCoverage(subsets));
  const shared = lists.every((c) => c.subsets_in_average.join("\u0000") === lists[0]?.subsets_in_average.join("\u0000"));
  if (lists.length === 0) return "Average F1";
  return shared ? measuredAverageHeading(lists[0]!).heading : "Average F1 over each run's subsets (partial unless ProcessBench's four)";
}

export interface PublishedRow {
  model: string;
  /** The source's four-subset average, "61.9" as published (already a percentage). */
  averageF1Text: string;
  averageF1: number;
  /** Per subset in ProcessBench's order, "72.4" as published, or "—" where the source gives only the average. */
  subsetTexts: string[];
  /** "64.1 with Maj@8", when the source gives a voted figure. */
  votedText: string | null;
  /** The voted figures per subset, "Maj@8: 72.9 · 72.1 · 57.3 · 54.0", when the source gives them. */
  votedSubsetsText: string | null;
  /** "StepWiser chunk judge (stepwiser-chunk)" or null when the studio speaks no protocol of its kind. */
  protocolText: string | null;
  family: string;
  /** The table the row is read from. */
  source: string;
  note: string | null;
}

/** The published subset columns, in ProcessBench's order, as the sources head them. */
export const PUBLISHED_SUBSET_HEADINGS: Readonly<Record<ProcessBenchSubset, string>> = { gsm8k: "GSM8K", math: "MATH", olympiadbench: "OlympiadBench", omnimath: "Omni-MATH" };

const figure = (value: number) => value.toFixed(1);
const subsetFigures = (subsets: PublishedSubsetF1 | null) => PROCESSBENCH_SUBSETS.map((s) => (subsets ? figure(subsets[s]) : "—"));

/** The published references, best first, as the reference block shows them. */
export function publishedRows(published: readonly PublishedProcessBenchF1[]): PublishedRow[] {
  return [...published]
    .sort((a, b) => b.averageF1 - a.averageF1)
    .map((entry) => ({
      model: entry.model,
      averageF1: entry.averageF1,
      averageF1Text: figure(entry.averageF1),
      subsetTexts: subsetFigures(entry.subsets),
      votedText: entry.voted ? `${figure(entry.voted.averageF1)} with ${entry.voted.method}` : null,
      votedSubsetsText: entry.voted?.subsets ? `${entry.voted.method}: ${subsetFigures(entry.voted.subsets).join(" · ")}` : null,
      protocolText: entry.protocol ? protocolFamilyText(entry.protocol) : null,
      family: entry.family,
      source: entry.source,
      note: entry.note ?? null,
    }));
}

function protocolFamilyText(id: JudgeProtocolId): string {
  return `${JUDGE_PROTOCOLS[id].label} (${id})`;
}

/** The sources the block cites, each once. */
export function publishedSources(published: readonly PublishedProcessBenchF1[]): string[] {
  return [...new Set(published.map((entry) => entry.source))];
}

/**
 * What the reference block says about what can and cannot be set side by side:
 * what is published, and whether the measured average is comparable to the
 * published averages (only when it is over the same four subsets).
 */
export function publishedCaveat(coverage: AverageCoverage): string {
  const published =
    "The published figures are F1 per subset where the source gives them and the source's average over ProcessBench's four subsets (gsm8k, math, olympiadbench, omnimath), each row from its own table: no acc_err, acc_cor or interval; they were not measured here.";
  const measured = coverage.average_is_partial
    ? `The measured average above is a ${averageLabel(coverage.subsets_in_average)}, by the studio's own runs: it is not comparable with the published averages, so compare subset by subset instead.`
    : "The measured average above is over the same four subsets, by the studio's own runs.";
  return `${published} ${measured}`;
}

// ── PRMBench published ──

export interface PublishedPrmbenchRow {
  model: string;
  prmscore: number;
  /** "65.5" as published (already a percentage). */
  prmscoreText: string;
  /** Per class in PRMBench's table order, as published. */
  classTexts: string[];
  family: string;
  protocolText: string | null;
  source: string;
  note: string | null;
}

/** The published per-class columns, in PRMBench's order, as its tables head them (with the paper's names for a title). */
export const PUBLISHED_PRMBENCH_CLASS_HEADINGS: ReadonlyArray<{ classification: string; heading: string; name: string }> = PRMBENCH_CLASS_ORDER.map((c) => ({
  classification: c,
  heading: PRMBENCH_CLASSES[c].abbreviation,
  name: PRMBENCH_CLASSES[c].name,
}));

/** The published PRMScores, best first. */
export function publishedPrmbenchRows(published: readonly PublishedPrmbenchScore[]): PublishedPrmbenchRow[] {
  return [...published]
    .sort((a, b) => b.prmscore - a.prmscore)
    .map((entry) => ({
      model: entry.model,
      prmscore: entry.prmscore,
      prmscoreText: figure(entry.prmscore),
      classTexts: PRMBENCH_CLASS_ORDER.map((c) => figure(entry.byClass[c])),
      family: entry.family,
      protocolText: entry.protocol ? protocolFamilyText(entry.protocol) : null,
      source: entry.source,
      note: entry.note ?? null,
    }));
}

/** The sources the PRMBench block cites, each once, with where exactly it was read. */
export function publishedPrmbenchSources(published: readonly PublishedPrmbenchScore[]): string[] {
  return [...new Set(published.map((entry) => entry.source))].map((source) => `${source}, ${PUBLISHED_PRMBENCH_SOURCE_DETAILS[source]}`);
}

/** What the PRMBench reference block says can and cannot be set side by side. */
export function publishedPrmbenchCaveat(benchmark: LeaderboardBenchmark): string {
  const published =
    "The published figures are PRMScores over the whole of PRMBench as its authors' table prints them, overall and per class (the MS. column is that class's F1, as the source scores a class without error steps): no F1, F1_neg or interval; they were not measured here.";
  const measured =
    benchmark === "prmbench"
      ? "The measured PRMScores above are over this import's items only: comparable with the published ones only when the import is the whole benchmark."
      : "A measured PRMScore above is the same judge's PRMBench run, over that run's import only.";
  return `${published} ${measured}`;
}
