import {
  buildOutcomePointwisePrompt,
  OUTCOME_PAIRWISE_PROMPT,
  RRM_SYSTEM_PROMPT,
} from "../../prompts/outcome";
import { fillPromptTemplate, type ChatPrompt } from "../../prompts/template";
import { lastBoxed } from "../../text/boxed";

/**
 * The text a reasoning model's answer is read from: after the last `</think>` when there is
 * one. Thinking that was opened (`<think>`) and never closed was cut off, so there is no answer
 * to read: null.
 */
export function afterThinking(text: string): string | null {
  const end = text.lastIndexOf("</think>");
  if (end >= 0) return text.slice(end + "</think>".length);
  return text.includes("<think>") ? null : text;
}

// ---------------------------------------------------------------- pointwise

export const OUTCOME_SCORE_MIN = 1;
export const OUTCOME_SCORE_MAX = 10;

/** The pointwise request: the prompt as the only user message. */
export function buildOutcomePointwiseMessages(values: { problem: string; steps: readonly string[] }): ChatPrompt {
  const prompt = buildOutcomePointwisePrompt(values);
  return { templateId: prompt.templateId, messages: [{ role: "user", content: prompt.text }] };
}

/** The score in the last `\boxed{…}` (after any thinking): an integer from 1 to 10, else null (unparseable). */
export function parseOutcomeScore(text: string): number | null {
  const answer = afterThinking(text);
  const box = answer === null ? null : lastBoxed(answer);
  if (!box) return null;
  const content = box.content.trim();
  if (!/^\d+$/.test(content)) return null;
  const score = Number(content);
  return score >= OUTCOME_SCORE_MIN && score <= OUTCOME_SCORE_MAX ? score : null;
}

/** A solution's score over K samples: the mean of the parsed scores, null when none parsed. */
export function meanOutcomeScore(scores: readonly (number | null)[]): number | null {
  const parsed = scores.filter((score): score is number => score !== null);
  return parsed.length === 0 ? null : parsed.reduce((sum, score) => sum + score, 0) / parsed.length;
}

// ---------------------------------------------------------------- pairwise

/** Which of the two solutions of a pairwise prompt won: 1 (listed first) or 2. */
export type PairSide = 1 | 2;

/** The pairwise request (RRM): the system prompt and the filled user message. */
export function buildOutcomePairwiseMessages(values: { question: string; answer1: string; answer2: string }): ChatPrompt {
  const prompt = fillPromptTemplate(OUTCOME_PAIRWISE_PROMPT, values);
  return {
    templateId: prompt.templateId,
    messages: [
      { role: "system", content: RRM_SYSTEM_PROMPT },
      { role: "user", content: prompt.text },
    ],
  };
}

/** `\boxed{Assistant 2}` (looked for first) -> 2, `\boxed{Assistant 1}` -> 1, after any thinking; else null. */
export function parsePairwiseWinner(text: string): PairSide | null {
  const answer = afterThinking(text);
  if (answer === null) return null;
  if (answer.includes("\\boxed{Assistant 2}")) return 2;
  if (answer.includes("\\boxed{Assistant 1}")) return 1;
  return null;
}

export interface PairVotes {
  first: number;
  second: number;
  unparseable: number;
}

export interface PairDecision {
  /** The side that won; the first-listed one when the votes do not decide. */
  winner: PairSide;
  votes: PairVotes;
  /** "majority", or why the first-listed candidate won by default: a tie, or no readable vote. */
  decidedBy: "majority" | "tie" | "no-votes";
}

/** Majority over the K samples of one match. A tie, or no readable vote, goes to the first-listed candidate. */
export function majorityOfPairVotes(samples: readonly (PairSide | null)[]): PairDecision {
  const votes: PairVotes = { first: 0, second: 0, unparseable: 0 };
  for (const sample of samples) {
    if (sample === 1) votes.first += 1;
    else if (sample === 2) votes.second += 1;
    else votes.unparseable += 1;
  }
  if (votes.first === 0 && votes.second === 0) return { winner: 1, votes, decidedBy: "no-votes" };
  if (votes.first === votes.second) return { winner: 1, votes, decidedBy: "tie" };
  return { winner: votes.first > votes.second ? 1 : 2, votes, decidedBy: "majority" };
}

// ---------------------------------------------------------------- knockout

/** One round's pairing: candidates in order, 1st vs 2nd, 3rd vs 4th, …; an odd one out gets a bye. */
export function pairRound(candidates: readonly number[]): { matches: [number, number][]; bye: number | null } {
  const matches: [number, number][] = [];
  for (let index = 0; index + 1 < candidates.length; index += 2) matches.push([candidates[index]!, candidates[index + 1]!]);
  return { matches, bye: candidates.length % 2 === 1 ? candidates.at(-1)! : null };
}

export interface BracketMatch {
  /** The two candidates (0-based indices), in the order they were shown: first as Assistant 1. */
  candidates: [number, number];
  winner: number;
  votes: PairVotes;
  decidedBy: PairDecision["decidedBy"];
}

export interface BracketRound {
  matches: BracketMatch[];
  /** The candidate that advanced without a match, if the round had an odd count. */
  bye: number | null;
}

/** A knockout tournament, as stored: a plain JSON value. */
export interface Bracket {
  candidateCount: number;
  rounds: BracketRound[];
  winner: number;
}

/** What the decider returns for one match: the winning candidate (one of the two), and the votes behind it. */
export interface KnockoutMatchResult {
  winner: number;
  votes: PairVotes;
  decidedBy: PairDecision["decidedBy"];
}

/**
 * Runs a knockout over candidates 0..n-1: each round pairs the remaining candidates in order
 * and asks `decide` for every match (the round's matches concurrently); winners and the bye
 * advance until one remains. `decide` is called exactly n-1 times.
 */
export async function runKnockout(
  n: number,
  decide: (first: number, second: number, round: number) => Promise<KnockoutMatchResult>,
): Promise<Bracket> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`a knockout needs at least one candidate, got ${n}`);
  let remaining = Array.from({ length: n }, (_, index) => index);
  const rounds: BracketRound[] = [];
  while (remaining.length > 1) {
    const round = rounds.length;
    const { matches, bye } = pairRound(remaining);
    const played = await Promise.all(
      matches.map(async ([first, second]): Promise<BracketMatch> => {
        const result = await decide(first, second, round);
        if (result.winner !== first && result.winner !== second) {
          throw new RangeError(`round ${round + 1}: the match between ${first} and ${second} returned ${result.winner} as its winner`);
        }
        return { candidates: [first, second], winner: result.winner, votes: { ...result.votes }, decidedBy: result.decidedBy };
      }),
    );
    rounds.push({ matches: played, bye });
    remaining = played.map((match) => match.winner);
    if (bye !== null) remaining.push(bye);
  }
  return { candidateCount: n, rounds, winner: remaining[0]! };
}
