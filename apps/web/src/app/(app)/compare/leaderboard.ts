/**
 * The metrics tab as a leaderboard: the measured runs ranked by their average F1
 * (named a partial average unless over ProcessBench's four subsets), and below
 * them, apart and in a table of their own, the ProcessBench F1s published
 * elsewhere (not measured here; only four-subset averages in their average
 * column). Free of React so the shaping can be tested alone.
 */
import { averageCoverage, averageLabel, JUDGE_PROTOCOLS, PROCESSBENCH_SUBSETS, type AverageCoverage, type JudgeProtocolId, type ProcessBenchSubset, type PublishedProcessBenchF1, type PublishedSubsetF1 } from "@stepwiser/core";
import { pct } from "./format";

export interface MeasuredInput {
  id: string;
  isBaseline: boolean;
  protocol: { label: string; ref: string; template?: string | null };
  average: { f1: number; ci: { f1: { lower: number; upper: number } } };
}

export interface MeasuredRow {
  id: string;
  /** 1 = best; runs with the same average F1 share a rank. */
  rank: number;
  isBaseline: boolean;
  protocolLabel: string;
  protocolRef: string;
  /** The prompt template the run asked with, where its protocol has one of ours. */
  template: string | null;
  /** As a fraction, like the rest of the comparison. */
  averageF1: number;
  ci: { lower: number; upper: number };
}

/** The runs by average F1, best first; equal scores keep the order they were picked in and share a rank. */
export function measuredLeaderboard(runs: readonly MeasuredInput[]): MeasuredRow[] {
  const sorted = runs.map((run, order) => ({ run, order })).sort((a, b) => b.run.average.f1 - a.run.average.f1 || a.order - b.order);
  const rows: MeasuredRow[] = [];
  sorted.forEach(({ run }, i) => {
    const previous = rows[i - 1];
    const rank = previous && previous.averageF1 === run.average.f1 ? previous.rank : i + 1;
    rows.push({ id: run.id, rank, isBaseline: run.isBaseline, protocolLabel: run.protocol.label, protocolRef: run.protocol.ref, template: run.protocol.template ?? null, averageF1: run.average.f1, ci: run.average.ci.f1 });
  });
  return rows;
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

/** A measured F1 in the leaderboard's text: "61.9". */
export const measuredF1Text = (row: MeasuredRow): string => pct(row.averageF1);
