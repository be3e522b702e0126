import { createRng, shuffle } from "../stats/random";

/** How a solution's chunk scores become one score (spec §5: mean by default; min and last as options). */
export const SOLUTION_AGGREGATIONS = ["mean", "min", "last"] as const;
export type SolutionAggregation = (typeof SOLUTION_AGGREGATIONS)[number];

/** A solution's score from its chunk scores, in chunk order (0 when it has none). */
export function aggregateSolutionScore(chunkScores: readonly number[], aggregation: SolutionAggregation): number {
  if (chunkScores.length === 0) return 0;
  if (aggregation === "min") return Math.min(...chunkScores);
  if (aggregation === "last") return chunkScores[chunkScores.length - 1]!;
  return chunkScores.reduce((sum, s) => sum + s, 0) / chunkScores.length;
}

/** Index of the best-scored item; ties go to the earliest (a fixed, reproducible rule). */
export function pickBest(scores: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  return best;
}

/** One response to a problem, as stepwise data selection sees it. */
export interface SelectionCandidate {
  solutionId: string;
  /** Whether the final answer is correct (the outcome reward). */
  correct: boolean;
  /** The judge's score of each chunk in chunk order; null when the judge judged none of its chunks. */
  chunkScores: readonly number[] | null;
}

export interface SelectionProblem {
  problemId: string;
  /** What the outcome baseline's draw is seeded with besides the seed: stable across copies of the data (e.g. the problem text's hash). */
  seedKey: string;
  /** In the order ties are broken in: the earliest wins. */
  candidates: readonly SelectionCandidate[];
}

export type SelectionOutcome =
  | { kind: "selected"; index: number; score: number; scores: Array<number | null> }
  | { kind: "skipped"; reason: "no-correct-candidate" | "no-judged-chunk"; scores: Array<number | null> };

export interface SelectionOptions {
  aggregate: SolutionAggregation;
  /** "outcome": a seeded random pick among the same candidates, the paper's outcome-only selection. */
  baseline?: "outcome";
  seed: number;
}

/** The seed of one problem's outcome-baseline draw. */
export const outcomeBaselineSeed = (seed: number, seedKey: string) => `${seed}:outcome:${seedKey}`;

/**
 * Stepwise data selection (paper §4.4, Table 8): among a problem's responses whose
 * final answer is correct, the one the judge scores highest (its chunk scores
 * aggregated; ties to the earliest). Only responses with a judged chunk compete;
 * a problem with no correct response, or none the judge judged, is skipped. The
 * outcome baseline draws one of the same competitors at random (seeded per problem),
 * so both selections cover the same problems.
 */
export function selectResponse(problem: SelectionProblem, options: SelectionOptions): SelectionOutcome {
  const scores = problem.candidates.map((c) => (c.chunkScores && c.chunkScores.length > 0 ? aggregateSolutionScore(c.chunkScores, options.aggregate) : null));
  if (!problem.candidates.some((c) => c.correct)) return { kind: "skipped", reason: "no-correct-candidate", scores };
  const eligible = problem.candidates.flatMap((c, i) => (c.correct && scores[i] !== null ? [i] : []));
  if (eligible.length === 0) return { kind: "skipped", reason: "no-judged-chunk", scores };
  const index =
    options.baseline === "outcome"
      ? eligible[createRng(outcomeBaselineSeed(options.seed, problem.seedKey)).nextInt(eligible.length)]!
      : eligible[pickBest(eligible.map((i) => scores[i]!))]!;
  return { kind: "selected", index, score: scores[index]!, scores };
}

/**
 * At most `max` of one problem's items, drawn without replacement with a seed of
 * their own (`<seed>:keep:<seedKey>`), returned in their given order.
 */
export function keepAtMost<T>(items: readonly T[], max: number, seed: number, seedKey: string): T[] {
  if (items.length <= max) return [...items];
  const chosen = new Set(shuffle(items.map((_, i) => i), `${seed}:keep:${seedKey}`).slice(0, max));
  return items.filter((_, i) => chosen.has(i));
}
