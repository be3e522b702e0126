/**
 * The metrics tab as a leaderboard: the measured runs ranked by their average F1,
 * and below them, apart, the ProcessBench F1s published elsewhere (not measured
 * here). Free of React so the shaping can be tested alone.
 */
import { JUDGE_PROTOCOLS, type JudgeProtocolId, type PublishedProcessBenchF1 } from "@stepwiser/core";
import { pct } from "./format";

export interface MeasuredInput {
  id: string;
  isBaseline: boolean;
  protocol: { label: string; ref: string };
  average: { f1: number; ci: { f1: { lower: number; upper: number } } };
}

export interface MeasuredRow {
  id: string;
  /** 1 = best; runs with the same average F1 share a rank. */
  rank: number;
  isBaseline: boolean;
  protocolLabel: string;
  protocolRef: string;
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
    rows.push({ id: run.id, rank, isBaseline: run.isBaseline, protocolLabel: run.protocol.label, protocolRef: run.protocol.ref, averageF1: run.average.f1, ci: run.average.ci.f1 });
  });
  return rows;
}

export interface PublishedRow {
  model: string;
  /** "61.9" as published (already a percentage). */
  averageF1Text: string;
  averageF1: number;
  /** "64.1 with Maj@8", when the source gives a voted figure. */
  votedText: string | null;
  /** "StepWiser chunk judge (stepwiser-chunk)" or null when the studio speaks no protocol of its kind. */
  protocolText: string | null;
  family: string;
  source: string;
}

/** The published references, best first, as the reference block shows them. */
export function publishedRows(published: readonly PublishedProcessBenchF1[]): PublishedRow[] {
  return [...published]
    .sort((a, b) => b.averageF1 - a.averageF1)
    .map((entry) => ({
      model: entry.model,
      averageF1: entry.averageF1,
      averageF1Text: entry.averageF1.toFixed(1),
      votedText: entry.voted ? `${entry.voted.averageF1.toFixed(1)} with ${entry.voted.method}` : null,
      protocolText: entry.protocol ? protocolFamilyText(entry.protocol) : null,
      family: entry.family,
      source: entry.source,
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
 * What the reference block says about what can and cannot be set side by side: only
 * the average is published, and the measured average is over the subsets compared here.
 */
export function publishedCaveat(measuredSubsets: readonly string[]): string {
  const over = measuredSubsets.length === 1 ? `the one subset here (${measuredSubsets[0]})` : `the ${measuredSubsets.length} subsets here (${measuredSubsets.join(", ")})`;
  return `Only the average F1 over ProcessBench's four subsets (gsm8k, math, olympiadbench, omnimath) is published: no acc_err, acc_cor, per-subset score or interval. The measured average above is over ${over}, by the studio's own runs; the published figures were not measured here.`;
}

/** A measured F1 in the leaderboard's text: "61.9". */
export const measuredF1Text = (row: MeasuredRow): string => pct(row.averageF1);
