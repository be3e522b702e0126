/**
 * Majority vote over final answers (self-consistency), where two answers are
 * the same answer when the grader says they are equivalent: `0.5`,
 * `\frac{1}{2}` and `1/2` vote together instead of splitting three ways.
 */
import { gradeAnswer, type GradeOptions } from "./grade";

export interface AnswerCluster {
  /** The cluster's first answer, as given; every other member was found equivalent to it. */
  representative: string;
  /** Indices into the input of the members, in input order (the representative's first). */
  members: number[];
}

export interface AnswerVote {
  /** The cluster with the most members (ties: the one formed first); null when no answer was given at all. */
  winner: AnswerCluster | null;
  /** Every cluster, in the order they were formed (that of their representatives in the input). */
  clusters: AnswerCluster[];
  /** Missing (null, undefined) or blank answers: they do not vote. */
  abstained: number;
}

function isPresent(answer: string | null | undefined): answer is string {
  return typeof answer === "string" && answer.trim() !== "";
}

/**
 * Groups answers by equivalence: each answer, in input order, joins the first
 * cluster whose representative it is equivalent to (the same text after
 * trimming, or `gradeAnswer(representative, answer)` equivalent), else starts
 * a new cluster. Comparing with the representative only, never with every
 * member, keeps the result independent of the grader's tolerance chaining
 * (a ≈ b and b ≈ c without a ≈ c) and costs at most answers × clusters
 * comparisons. Each comparison has `timeLimitMs` (default the grader's); a
 * comparison that runs out of time counts as "not equivalent". Missing and
 * blank answers join no cluster.
 */
export function clusterAnswers(answers: readonly (string | null | undefined)[], options: GradeOptions = {}): AnswerCluster[] {
  const clusters: AnswerCluster[] = [];
  answers.forEach((answer, index) => {
    if (!isPresent(answer)) return;
    const home = clusters.find(({ representative }) => representative.trim() === answer.trim() || gradeAnswer(representative, answer, options).equivalent);
    if (home) home.members.push(index);
    else clusters.push({ representative: answer, members: [index] });
  });
  return clusters;
}

/**
 * The majority answer of `answers` by the grader's equivalence (see
 * `clusterAnswers`). The largest cluster wins; among equally large ones, the
 * one formed first, i.e. whose first answer comes earliest in the input, so
 * the result depends only on the answers and their order. Missing and blank
 * answers abstain: they never win over a real answer, and when every answer
 * is missing there is no winner.
 */
export function majorityAnswer(answers: readonly (string | null | undefined)[], options: GradeOptions = {}): AnswerVote {
  const clusters = clusterAnswers(answers, options);
  let winner: AnswerCluster | null = null;
  for (const cluster of clusters) if (!winner || cluster.members.length > winner.members.length) winner = cluster;
  const abstained = answers.length - clusters.reduce((sum, cluster) => sum + cluster.members.length, 0);
  return { winner, clusters, abstained };
}
