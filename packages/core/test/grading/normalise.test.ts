import { describe, expect, it } from "vitest";
import { DEFAULT_GRADE_OPTIONS, gradeAnswer, normaliseAnswer, parseWordNumber } from "../../src/grading";

describe("normaliseAnswer", () => {
  it.each([
    [String.raw`$\dfrac{1}{2}$`, String.raw`\frac{1}{2}`],
    [String.raw`\frac12`, String.raw`\frac{1}{2}`],
    [String.raw`\tfrac1{2}`, String.raw`\frac{1}{2}`],
    [String.raw`\sqrt3`, String.raw`\sqrt{3}`],
    [String.raw`\left( 1, 2 \right)`, "(1,2)"],
    [String.raw`1{,}000`, "1000"],
    [String.raw`1\,000\,000`, "1000000"],
    ["1,000,000", "1000000"],
    [String.raw`30^{\circ}`, "30"],
    ["45°", "45"],
    [String.raw`5 \text{ cm}^2`, String.raw`5\text{ cm^2}`],
    ["15 square centimeters", String.raw`15\text{ cm^2}`],
    ["12 oranges", String.raw`12\text{ orange}`],
    [String.raw`\$1{,}250`, "1250"],
    [String.raw`x = -7`, "-7"],
    [String.raw`\{3, 1, 2\}`, String.raw`\{1,2,3\}`],
    ["3, 1, 2", "1,2,3"],
    [String.raw`\pm 2`, "-2,2"],
    [String.raw`\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}`, String.raw`\begin{pmatrix}1&2\\3&4\end{pmatrix}`],
    ["x^2 + 1", "x^{2}+1"],
    ["one hundred and five", "105"],
    [String.raw`\text{(B)}`, "B"],
    [".5", "0.5"],
  ])("%s → %s", (input, expected) => {
    expect(normaliseAnswer(input)).toBe(expected);
  });

  it("keeps the brackets of intervals: they are part of the value", () => {
    expect(normaliseAnswer("[1, 2)")).toBe("[1,2)");
    expect(normaliseAnswer(String.raw`(-\infty, 3]`)).toBe(String.raw`(-\infty,3]`);
  });
});

describe("parseWordNumber", () => {
  it.each([
    ["five", "5"],
    ["twenty-one", "21"],
    ["twenty one", "21"],
    ["one hundred", "100"],
    ["a hundred and twelve", "112"],
    ["three thousand four hundred", "3400"],
    ["two million", "2000000"],
    ["negative four", "-4"],
    ["zero", "0"],
  ])("%s → %s", (words, digits) => expect(parseWordNumber(words)).toBe(digits));

  it.each(["five six", "hundred", "fivehundred", "the one", "", "twenty thirty"])("rejects %j", (text) =>
    expect(parseWordNumber(text)).toBeNull(),
  );
});

describe("grading options", () => {
  it("documents its defaults", () => {
    expect(DEFAULT_GRADE_OPTIONS).toEqual({
      timeLimitMs: 2000,
      mode: "lenient",
      decimalPlaces: 6,
      relativeTolerance: 1e-9,
      percentAsFraction: false,
      unorderedLists: true,
    });
  });

  it("reads 50% as 50 by default and as 0.5 with percentAsFraction", () => {
    expect(gradeAnswer(String.raw`50\%`, "50").equivalent).toBe(true);
    expect(gradeAnswer(String.raw`50\%`, "0.5").equivalent).toBe(false);
    expect(gradeAnswer(String.raw`50\%`, "0.5", { percentAsFraction: true }).equivalent).toBe(true);
    expect(gradeAnswer(String.raw`12.5\%`, String.raw`\frac{1}{8}`, { percentAsFraction: true }).equivalent).toBe(true);
    expect(gradeAnswer(String.raw`50\%`, "50", { percentAsFraction: true }).equivalent).toBe(false);
  });

  it("treats bare lists as unordered unless told otherwise; tuples are always ordered", () => {
    expect(gradeAnswer("2, 3", "3, 2").equivalent).toBe(true);
    expect(gradeAnswer("2, 3", "3, 2", { unorderedLists: false }).equivalent).toBe(false);
    expect(gradeAnswer("2, 3", "2, 3", { unorderedLists: false }).equivalent).toBe(true);
    expect(gradeAnswer("(2, 3)", "(3, 2)").equivalent).toBe(false);
  });

  it("lets a decimal approximation match when it agrees to the decimal places, and compares exact numbers exactly", () => {
    expect(gradeAnswer(String.raw`\frac{1}{3}`, "0.3333333")).toMatchObject({ equivalent: true, reason: "numeric" });
    expect(gradeAnswer(String.raw`\frac{1}{3}`, "0.333333")).toMatchObject({ equivalent: true, reason: "numeric" });
    // Near misses: two or three places are not six.
    expect(gradeAnswer(String.raw`\frac{1}{3}`, "0.33")).toMatchObject({ equivalent: false, reason: "numeric" });
    expect(gradeAnswer(String.raw`\frac{1}{3}`, "0.333")).toMatchObject({ equivalent: false, reason: "numeric" });
    expect(gradeAnswer(String.raw`\frac{1}{3}`, "0.33", { decimalPlaces: 2 }).equivalent).toBe(true);
    // π to five places is not π to six; the documented option accepts it.
    expect(gradeAnswer(String.raw`\pi`, "3.14159").equivalent).toBe(false);
    expect(gradeAnswer(String.raw`\pi`, "3.141593").equivalent).toBe(true);
    expect(gradeAnswer(String.raw`\pi`, "3.14159", { decimalPlaces: 5 }).equivalent).toBe(true);
    expect(gradeAnswer(String.raw`2\pi`, "6.28").equivalent).toBe(false);
    expect(gradeAnswer("1000000", "1000001", { relativeTolerance: 0.01 })).toMatchObject({ equivalent: false, reason: "numeric" });
    expect(gradeAnswer("123456789.5", "123456789.50000001")).toMatchObject({ equivalent: true, reason: "numeric" });
    expect(gradeAnswer("0", "0.0000001")).toMatchObject({ equivalent: true, reason: "numeric" });
    expect(gradeAnswer("0", "0.000001")).toMatchObject({ equivalent: false, reason: "numeric" });
  });
});

describe("gradeAnswer results", () => {
  it("carries extraction, normalised forms and the deciding reason for each side", () => {
    const result = gradeAnswer(String.raw`\frac{1}{2}`, String.raw`Thus the answer is $0.5$.`);
    expect(result).toMatchObject({
      equivalent: true,
      reason: "numeric",
      gold: { extracted: String.raw`\frac{1}{2}`, rule: "whole-text", normalised: String.raw`\frac{1}{2}` },
      pred: { extracted: "0.5", rule: "answer-is", normalised: "0.5" },
    });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it.each([
    ["1,000", "1000", true, "string"],
    [String.raw`2\sqrt{2}`, String.raw`\sqrt{8}`, true, "symbolic"],
    [String.raw`2\sqrt{3}`, String.raw`\sqrt{6}`, false, "numeric"],
    ["x^2+2x+1", "(x+1)^2", true, "symbolic"],
    ["x^2+2x+2", "(x+1)^2", false, "symbolic"],
    ["[1,2)", "[1,2]", false, "string"],
    ["(1,2)", "(2,1)", false, "numeric"],
    ["5", "We could not finish the computation in time, sorry about that.", false, "unparseable"],
    ["", "5", false, "unparseable"],
  ] as const)("%s vs %s → %s (%s)", (gold, pred, equivalent, reason) => {
    expect(gradeAnswer(gold, pred)).toMatchObject({ equivalent, reason });
  });
});
