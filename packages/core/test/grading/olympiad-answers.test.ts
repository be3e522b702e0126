import { describe, expect, it } from "vitest";
import { extractAnswer, gradeAnswer, referenceAnswerList } from "../../src/grading";

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
  it("reads a prediction's list written with and/or or as several boxes", () => {
    expect(equal("2$, $-6-4\\sqrt{2}", "\\boxed{2 \\text{ and } -6 - 4\\sqrt{2}}")).toBe(true);
    expect(equal("f(x)=x$,$f(x)=2-x", "\\boxed{f(x) = x \\text{ or } f(x) = -x + 2}")).toBe(true);
    expect(equal("f(x)=x$,$f(x)=2-x", "\\boxed{f(x) = x} and \\boxed{f(x) = 2 - x}")).toBe(true);
    expect(equal("8$,$4", "The answers are \\boxed{4} and \\boxed{8}.")).toBe(true);
    expect(equal("3$,$5", "so $x = 3$ or $x = 5$")).toBe(true);
    expect(equal("2$, $-6-4\\sqrt{2}", "\\boxed{2 \\text{ and } -6 + 4\\sqrt{2}}")).toBe(false);
    expect(equal("f(x)=x$,$f(x)=2-x", "\\boxed{f(x) = x \\text{ or } f(x) = x + 2}")).toBe(false);
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

describe("a bare reference list against a tuple", () => {
  it("compares the entries in order, and says so", () => {
    const result = gradeAnswer("1,2,3", "the only solution is \\((x, y, z) = \\boxed{(1, 2, 3)}\\)");
    expect(result).toMatchObject({ equivalent: true, reading: "ordered-tuple" });
    expect(equal("\\frac{1}{3},-2,5", "\\boxed{\\left(\\frac{1}{3}, -2, 5\\right)}")).toBe(true);
    expect(equal("10^{3}$,$10", "\\boxed{(1000, 10)}")).toBe(true);
    expect(equal("10^{3}$,$10", "The solution to the system is \\((x, y) = (1000, 10)\\).")).toBe(true);
  });
  it("never accepts a tuple in another order or of another length", () => {
    expect(equal("1,2,3", "\\boxed{(3, 2, 1)}")).toBe(false);
    expect(equal("10^{3}$,$10", "\\boxed{(10, 1000)}")).toBe(false);
    expect(equal("10^{3}$,$10", "The solution is \\((x, y) = (10, 1000)\\).")).toBe(false);
    expect(equal("1,2,3", "\\boxed{(1, 2)}")).toBe(false);
  });
  it("keeps a bare list against a bare list or a set order-free", () => {
    expect(gradeAnswer("8$,$4", "\\boxed{4, 8}")).toMatchObject({ equivalent: true, reading: "unordered-list" });
    expect(gradeAnswer("8", "\\boxed{8}").reading).toBeUndefined();
  });
});

describe("a percent against a decimal", () => {
  const probability = "An 80 year old person has a $25 \\%$ chance of living at least another 10 years. What is the probability that he will live at least another 5 years?";
  it("is the same value when the problem does not ask for a percentage", () => {
    expect(gradeAnswer("62.5%", "\\boxed{0.625}", { problem: probability })).toMatchObject({ equivalent: true, reading: "percent-as-fraction" });
    expect(gradeAnswer("0.625", "so the probability is $62.5\\%$", { problem: probability }).equivalent).toBe(true);
    expect(gradeAnswer("62.5%", "\\boxed{0.6}", { problem: probability }).equivalent).toBe(false);
  });
  it("is not when the problem asks for a percentage, or is not given", () => {
    expect(gradeAnswer("62.5%", "\\boxed{0.625}", { problem: "What percent of the tickets were sold?" }).equivalent).toBe(false);
    expect(gradeAnswer("62.5%", "\\boxed{0.625}", { problem: "Give the share as a percentage." }).equivalent).toBe(false);
    expect(gradeAnswer("62.5%", "\\boxed{0.625}", { problem: "How much was sold, in %?" }).equivalent).toBe(false);
    expect(gradeAnswer("62.5%", "\\boxed{0.625}").equivalent).toBe(false);
    // The default reading of a percent is unchanged: 50% is 50.
    expect(gradeAnswer("50%", "\\boxed{50}", { problem: probability }).equivalent).toBe(true);
  });
});

describe("extraction from a concluding sentence", () => {
  const extracted = (pred: string, mode?: "boxed" | "lenient") => extractAnswer(pred, mode);
  it("reads the value the sentence states, not a word of its subject", () => {
    expect(extracted("Therefore, the value of \\( x \\) that satisfies the given equation is \\( x = 9 \\).")).toEqual({ text: "x = 9", rule: "last-math" });
    expect(extracted("Therefore, the maximum value of \\(x + y\\) under the given conditions is \\(\\frac{15}{4}\\).")).toEqual({ text: "\\frac{15}{4}", rule: "last-math" });
    expect(extracted("**Final Answer**: The probability that the set contains exactly 3 aces, given that no card is a club, is \\(1\\).")).toEqual({ text: "1", rule: "answer-label" });
    // A justification after the value is still cut.
    expect(extracted("The answer is 3/4 because 3 of the 4 cases work.")).toEqual({ text: "3/4", rule: "answer-is" });
  });
  it("never takes a bare variable for the answer", () => {
    expect(extracted("The root is $4$. Solving, we find $x$.")).toEqual({ text: "4", rule: "last-math" });
    expect(equal("9", "Solve for \\( x \\):\n\\[ 2x = 18 \\]\n\\[ x = 9 \\]\n\nSo we have found \\( x \\).")).toBe(true);
    // A lone choice letter or constant on its own is still an answer.
    expect(extracted("$E$")).toEqual({ text: "E", rule: "last-math" });
  });
  it("reads a bold final value as an answer phrase", () => {
    expect(extracted("We confirm the maximum of \\(\\sqrt{c(b - c)} + \\sqrt{c(a - c)}\\) is 8 when a = b = 8.\n\nTherefore, the maximum value of \\(\\sqrt{c(b - c)} + \\sqrt{c(a - c)}\\) given the constraints is **8**.")).toEqual({ text: "8", rule: "emphasised" });
    expect(extracted("So the area is **$\\frac{3}{2}$**.")).toEqual({ text: "\\frac{3}{2}", rule: "emphasised" });
    // A heading, a variable, or a bold value that later numbers follow is not the answer.
    expect(extracted("**Final Answer** the total is 12.")).toEqual({ text: "12", rule: "concluding-number" });
    expect(extracted("**Step 1:** we get **4**, then add 3 to get 7.")?.text).toBe("7");
    expect(extracted("We want **x**, so we are done.\n\nWe are done.")?.rule).not.toBe("emphasised");
    // Output asked to box its answer: bold is not enough.
    expect(extracted("so far **8**", "boxed")).toBeNull();
  });
});
