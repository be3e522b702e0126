import { describe, expect, it } from "vitest";
import {
  buildOutcomePairwiseMessages,
  buildOutcomePointwiseMessages,
  majorityOfPairVotes,
  meanOutcomeScore,
  pairRound,
  parseOutcomeScore,
  parsePairwiseWinner,
  runKnockout,
  type KnockoutMatchResult,
} from "../../../src/judge/protocols";
import { getPromptTemplate, RRM_SYSTEM_PROMPT } from "../../../src/prompts";

describe("pointwise outcome score", () => {
  it("sends one user message from the registered template", () => {
    const prompt = buildOutcomePointwiseMessages({ problem: "What is 2+2?", steps: ["2+2 = 4.", "The answer is \\boxed{4}."] });
    expect(prompt.templateId).toBe("outcome-pointwise@v1");
    expect(getPromptTemplate("outcome-pointwise@v1").slots).toEqual(["problem", "solution"]);
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]!.role).toBe("user");
    expect(prompt.messages[0]!.content).toContain("Problem:\nWhat is 2+2?\n\nSolution:\n2+2 = 4.\n\nThe answer is \\boxed{4}.\n\n");
    expect(prompt.messages[0]!.content.endsWith('End your answer with "Score: \\boxed{n}", where n is your rating.')).toBe(true);
  });

  it("reads the last box after the thinking", () => {
    expect(parseOutcomeScore("The solution adds correctly and the answer 4 matches.\n\nScore: \\boxed{9}")).toBe(9);
    expect(parseOutcomeScore("<think>Maybe \\boxed{2}... no, it is right.</think>\nScore: \\boxed{10}")).toBe(10);
    expect(parseOutcomeScore("The answer \\boxed{4} is right. Score: \\boxed{ 8 }")).toBe(8);
    expect(parseOutcomeScore("\\boxed{1}")).toBe(1);
    // A template that opens the thinking in the prompt leaves only its end in the answer.
    expect(parseOutcomeScore("It checks out.\n</think>\n\nScore: \\boxed{7}")).toBe(7);
  });

  it("records anything but an integer from 1 to 10 as unparseable", () => {
    for (const text of [
      "Score: 7",
      "Score: \\boxed{0}",
      "Score: \\boxed{11}",
      "Score: \\boxed{7.5}",
      "Score: \\boxed{7/10}",
      "Score: \\boxed{high}",
      "<think>Score: \\boxed{9}</think> I am not sure.",
      "<think>The solution is fine, so the score is",
      "Score: \\boxed{9",
    ]) {
      expect(parseOutcomeScore(text), text).toBeNull();
    }
  });

  it("averages the parsed samples", () => {
    expect(meanOutcomeScore([9, null, 6])).toBe(7.5);
    expect(meanOutcomeScore([null, null])).toBeNull();
  });
});

// RRM's pairwise format (Reward-Reasoning/RRM-32B model card): the system prompt, the query
// and the two responses, and an answer of \boxed{Assistant 1} or \boxed{Assistant 2}.
describe("pairwise outcome (RRM)", () => {
  it("sends RRM's system prompt and user message", () => {
    const prompt = buildOutcomePairwiseMessages({ question: "What is 2+2?", answer1: "4", answer2: "5" });
    expect(prompt.templateId).toBe("outcome-pairwise@v1");
    expect(prompt.messages[0]).toEqual({ role: "system", content: RRM_SYSTEM_PROMPT });
    expect(RRM_SYSTEM_PROMPT.startsWith("You are a helpful assistant in evaluating the quality of the responses for a given instruction.")).toBe(true);
    expect(RRM_SYSTEM_PROMPT.endsWith("(5) Your output should only consist of '\\boxed{Assistant 1}' if assistant 1 is better, or '\\boxed{Assistant 2}' if assistant 2 is better. Omit any other output.\n\n")).toBe(true);
    expect(prompt.messages[1]).toEqual({
      role: "user",
      content:
        "## Query\n\nWhat is 2+2?\n\n## Assistant responses\n\n### Assistant 1\n\n4\n\n\n### Assistant 2\n\n5\n\n## Analysis\n\n" +
        "Let's analyze this step by step and decide which assistant is better, and then answer \\boxed{Assistant 1} or \\boxed{Assistant 2}.",
    });
  });

  it("reads the winner after the thinking, Assistant 2 first", () => {
    expect(parsePairwiseWinner("<think>\nAssistant 1 says 4, which is right; Assistant 2 says 5.\n</think>\n\n\\boxed{Assistant 1}")).toBe(1);
    expect(parsePairwiseWinner("Assistant 2 is correct.\n\\boxed{Assistant 2}")).toBe(2);
    expect(parsePairwiseWinner("<think>I lean to \\boxed{Assistant 2}</think>\\boxed{Assistant 1}")).toBe(1);
    expect(parsePairwiseWinner("\\boxed{Assistant 1} or rather \\boxed{Assistant 2}")).toBe(2);
  });

  it("records answers without a box for an assistant as unparseable", () => {
    expect(parsePairwiseWinner("Assistant 1 is better.")).toBeNull();
    expect(parsePairwiseWinner("\\boxed{Assistant 3}")).toBeNull();
    expect(parsePairwiseWinner("\\boxed{1}")).toBeNull();
    expect(parsePairwiseWinner("<think>Comparing the two, \\boxed{Assistant 1} looks")).toBeNull();
  });

  it("takes the majority of a match's samples; a tie or no vote goes to the first-listed", () => {
    expect(majorityOfPairVotes([2, 2, 1, null])).toEqual({ winner: 2, votes: { first: 1, second: 2, unparseable: 1 }, decidedBy: "majority" });
    expect(majorityOfPairVotes([1])).toEqual({ winner: 1, votes: { first: 1, second: 0, unparseable: 0 }, decidedBy: "majority" });
    expect(majorityOfPairVotes([1, 2])).toMatchObject({ winner: 1, decidedBy: "tie" });
    expect(majorityOfPairVotes([null, null])).toMatchObject({ winner: 1, decidedBy: "no-votes" });
    expect(majorityOfPairVotes([])).toMatchObject({ winner: 1, decidedBy: "no-votes" });
  });
});

describe("knockout tournament", () => {
  it("pairs candidates in order with a bye for an odd one out", () => {
    expect(pairRound([0, 1, 2, 3])).toEqual({ matches: [[0, 1], [2, 3]], bye: null });
    expect(pairRound([4, 1, 7])).toEqual({ matches: [[4, 1]], bye: 7 });
    expect(pairRound([3])).toEqual({ matches: [], bye: 3 });
  });

  // A decider that prefers the candidate with the higher quality, recording its calls.
  function decider(quality: number[]) {
    const calls: [number, number][] = [];
    const decide = async (first: number, second: number): Promise<KnockoutMatchResult> => {
      calls.push([first, second]);
      await Promise.resolve();
      const winner = quality[second]! > quality[first]! ? second : first;
      return { winner, votes: { first: winner === first ? 3 : 0, second: winner === second ? 3 : 0, unparseable: 0 }, decidedBy: "majority" };
    };
    return { calls, decide };
  }

  it("has no match for one candidate", async () => {
    const { calls, decide } = decider([1]);
    expect(await runKnockout(1, decide)).toEqual({ candidateCount: 1, rounds: [], winner: 0 });
    expect(calls).toHaveLength(0);
  });

  it("plays one match for two", async () => {
    const { calls, decide } = decider([1, 5]);
    const bracket = await runKnockout(2, decide);
    expect(bracket).toEqual({
      candidateCount: 2,
      rounds: [{ matches: [{ candidates: [0, 1], winner: 1, votes: { first: 0, second: 3, unparseable: 0 }, decidedBy: "majority" }], bye: null }],
      winner: 1,
    });
    expect(calls).toEqual([[0, 1]]);
  });

  it("gives the odd one a bye, for three", async () => {
    const { calls, decide } = decider([9, 5, 7]);
    const bracket = await runKnockout(3, decide);
    expect(bracket.rounds.map((round) => ({ matches: round.matches.map((m) => [...m.candidates, m.winner]), bye: round.bye }))).toEqual([
      { matches: [[0, 1, 0]], bye: 2 },
      { matches: [[0, 2, 0]], bye: null },
    ]);
    expect(bracket.winner).toBe(0);
    expect(calls).toHaveLength(2);
  });

  it("runs five candidates to one winner in three rounds with four matches", async () => {
    const { calls, decide } = decider([1, 2, 3, 4, 10]);
    const bracket = await runKnockout(5, decide);
    expect(bracket.rounds.map((round) => round.bye)).toEqual([4, 4, null]);
    expect(bracket.rounds.map((round) => round.matches.map((m) => m.candidates))).toEqual([[[0, 1], [2, 3]], [[1, 3]], [[3, 4]]]);
    expect(bracket.winner).toBe(4);
    expect(calls).toHaveLength(4);
  });

  it("runs eight candidates in three rounds of 4, 2 and 1 matches", async () => {
    const { calls, decide } = decider([3, 8, 1, 6, 2, 7, 5, 4]);
    const bracket = await runKnockout(8, decide);
    expect(bracket.rounds.map((round) => round.matches.length)).toEqual([4, 2, 1]);
    expect(bracket.rounds.every((round) => round.bye === null)).toBe(true);
    expect(bracket.rounds[1]!.matches.map((m) => m.candidates)).toEqual([[1, 3], [5, 6]]);
    expect(bracket.winner).toBe(1);
    expect(calls).toHaveLength(7);
    expect(JSON.parse(JSON.stringify(bracket))).toEqual(bracket);
  });

  it("refuses no candidates and a winner that was not in the match", async () => {
    await expect(runKnockout(0, decider([]).decide)).rejects.toThrow(/at least one/);
    await expect(runKnockout(2, async () => ({ winner: 5, votes: { first: 0, second: 0, unparseable: 1 }, decidedBy: "no-votes" }))).rejects.toThrow(/returned 5/);
  });
});
