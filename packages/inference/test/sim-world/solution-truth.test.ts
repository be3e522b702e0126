import { describe, expect, it } from "vitest";
import { parseProblem, parseWorldChunk, truthOfSolution, WorldParseError } from "../../src/sim/world";
import { MIA_RIGHT, MIA_TEXT } from "./helpers";

const mia = parseProblem(MIA_TEXT);

describe("truthOfSolution", () => {
  it("accepts a right solution", () => {
    const truth = truthOfSolution(mia, MIA_RIGHT);
    expect(truth.chunks.map((chunk) => chunk.correct)).toEqual([true, true, true, true]);
    expect(truth.firstErrorIndex).toBe(-1);
    expect(truth.finalAnswer).toBe(28);
    expect(truth.finalAnswerCorrect).toBe(true);
    expect(truth.chunks.map((chunk) => chunk.writtenAfter)).toEqual([17, 14, 28, 28]);
  });

  it("marks an arithmetic error, the steps carried from it, and a recovery", () => {
    const solution = [
      "She buys 5 more: 12 + 5 = 18.",
      "She gives away 3: 18 - 3 = 15.",
      "Wait, let me recheck: 12 + 5 = 17, not 18, then 17 - 3 = 14. So now 14 × 2 = 28.",
      "So the answer is \\boxed{28}.",
    ];
    const truth = truthOfSolution(mia, solution);
    expect(truth.chunks.map((chunk) => chunk.reason)).toEqual(["arithmetic-error", "wrong-input", "recovery", "correct"]);
    expect(truth.chunks.map((chunk) => chunk.correct)).toEqual([false, false, true, true]);
    expect(truth.chunks.map((chunk) => chunk.stateCorrect)).toEqual([false, false, true, true]);
    expect(truth.firstErrorIndex).toBe(0);
    expect(truth.finalAnswerCorrect).toBe(true);
    expect(truth.chunks[1]).toMatchObject({ writtenBefore: 18, trueBefore: 17, writtenAfter: 15, trueAfter: 14 });
  });

  it("marks a wrong operation and a wrong final answer", () => {
    const solution = [MIA_RIGHT[0], MIA_RIGHT[1], "She doubles what she has: 14 + 2 = 16.", "So the answer is \\boxed{16}."];
    const truth = truthOfSolution(mia, solution);
    expect(truth.chunks.map((chunk) => chunk.reason)).toEqual(["correct", "correct", "wrong-operation", "wrong-answer"]);
    expect(truth.firstErrorIndex).toBe(2);
    expect(truth.finalAnswerCorrect).toBe(false);
  });

  it("rejects a recovery whose recheck is wrong, and chunks after the answer", () => {
    const badRecheck = ["She buys 5 more: 12 + 5 = 18.", "Wait, let me recheck: 12 + 5 = 16, not 18. So now 17 - 3 = 14."];
    expect(truthOfSolution(mia, badRecheck).chunks.map((chunk) => chunk.reason)).toEqual(["arithmetic-error", "bad-recovery"]);
    const extra = [...MIA_RIGHT, "She doubles what she has: 28 × 2 = 56."];
    const truth = truthOfSolution(mia, extra);
    expect(truth.chunks.at(-1)?.reason).toBe("extra-chunk");
    expect(truth.firstErrorIndex).toBe(4);
  });

  it("reads the chunk kinds, tolerating outer whitespace", () => {
    expect(parseWorldChunk("\n  She buys 5 more: 12 + 5 = 17.\n")).toMatchObject({ kind: "step", equation: { left: 12, symbol: "+", right: 5, result: 17 } });
    expect(parseWorldChunk("So the answer is \\boxed{-3}.")).toEqual({ kind: "answer", value: -3 });
    expect(parseWorldChunk("Wait, let me recheck: 12 + 5 = 17, not 18, then 17 - 3 = 14. So now 14 × 2 = 28.")).toMatchObject({
      kind: "recovery",
      rejectedValue: 18,
      rechecks: [
        { left: 12, symbol: "+", right: 5, result: 17 },
        { left: 17, symbol: "-", right: 3, result: 14 },
      ],
      equation: { left: 14, symbol: "×", right: 2, result: 28 },
    });
    expect(parseWorldChunk("Janet's ducks lay 16 eggs per day.")).toBeNull();
    expect(() => truthOfSolution(mia, ["Janet's ducks lay 16 eggs per day."])).toThrow(WorldParseError);
  });
});
