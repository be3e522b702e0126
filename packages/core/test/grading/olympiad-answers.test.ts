import { describe, expect, it } from "vitest";
import { gradeAnswer, referenceAnswerList } from "../../src/grading";

const equal = (gold: string, pred: string) => gradeAnswer(gold, pred).equivalent;

describe("OlympiadBench references with several answers (`$,$`)", () => {
  it("reads the reference as a list of its answers", () => {
    expect(referenceAnswerList("8$,$4")).toBe("8, 4");
    expect(referenceAnswerList("2^{-2 / 3}$, $8")).toBe("2^{-2 / 3}, 8");
    expect(referenceAnswerList("\\frac{1}{2}")).toBe("\\frac{1}{2}");
  });
  it("matches the answers in any order, as a list, a set or a tuple of the same answers", () => {
    expect(equal("8$,$4", "\\boxed{4, 8}")).toBe(true);
    expect(equal("8$,$4", "\\boxed{\\{4, 8\\}}")).toBe(true);
    expect(equal("6764$,$10945", "\\boxed{6764, 10945}")).toBe(true);
  });
  it("keeps different answer lists unequal", () => {
    expect(equal("8$,$4", "\\boxed{4}")).toBe(false);
    expect(equal("8$,$4", "\\boxed{4, 9}")).toBe(false);
    expect(equal("8$,$4", "\\boxed{4, 8, 2}")).toBe(false);
  });
});

describe("an answer stated as an equation, against a reference value", () => {
  it("compares the equation's value side", () => {
    expect(equal("4027", "The final answer is $x + y = 4027$.")).toBe(true);
    expect(equal("16", "\\boxed{|r-s| = 16}")).toBe(true);
    expect(equal("76", "\\boxed{E(2020, 1993) = 76}")).toBe(true);
  });
  it("never accepts an equation whose value side differs, two statements, or a relation", () => {
    expect(equal("4027", "\\boxed{x + y = 4026}")).toBe(false);
    expect(equal("4027", "\\boxed{4027 = x + 1}")).toBe(false);
    expect(equal("15", "\\boxed{x = 14, y = 15}")).toBe(false);
    expect(equal("5", "\\boxed{n >= 5}")).toBe(false);
    expect(equal("5", "\\boxed{n \\geq 5}")).toBe(false);
  });
});
