import { describe, expect, it } from "vitest";
import { extractAnswer } from "../../src/grading";

describe("extractAnswer: boxes", () => {
  it("reads a box with nested braces whole", () => {
    expect(extractAnswer(String.raw`so \boxed{\frac{\sqrt{3}}{2}} is it`)).toEqual({
      text: String.raw`\frac{\sqrt{3}}{2}`,
      rule: "boxed",
    });
  });

  it("keeps escaped set braces inside a box", () => {
    expect(extractAnswer(String.raw`\boxed{\{1, 2\}}`)?.text).toBe(String.raw`\{1, 2\}`);
  });

  it("takes the last box when there are several", () => {
    const response = String.raw`First \boxed{10}. Wait, that is wrong. Correcting: \boxed{12}.`;
    expect(extractAnswer(response)).toEqual({ text: "12", rule: "boxed" });
  });

  it("reports fbox as its own rule and lets the later of boxed/fbox win", () => {
    expect(extractAnswer(String.raw`\fbox{7}`)).toEqual({ text: "7", rule: "fbox" });
    expect(extractAnswer(String.raw`\fbox{7} then \boxed{8}`)).toEqual({ text: "8", rule: "boxed" });
    expect(extractAnswer(String.raw`\boxed{8} then \fbox{7}`)).toEqual({ text: "7", rule: "fbox" });
  });

  it("reads `\\boxed 5` (a box followed by a single token)", () => {
    expect(extractAnswer(String.raw`The total is $\boxed 5$.`)).toEqual({ text: "5", rule: "boxed" });
    expect(extractAnswer(String.raw`\boxed 42.`)).toEqual({ text: "42", rule: "boxed" });
  });

  it("skips an unclosed (truncated) box and an empty one", () => {
    expect(extractAnswer(String.raw`\boxed{3} and later \boxed{4`)).toEqual({ text: "3", rule: "boxed" });
    expect(extractAnswer(String.raw`\boxed{3} \boxed{ }`)).toEqual({ text: "3", rule: "boxed" });
  });

  it("prefers a box over an answer phrase, wherever the phrase is", () => {
    expect(extractAnswer(String.raw`\boxed{3}. The answer is 4.`)).toEqual({ text: "3", rule: "boxed" });
  });
});

describe("extractAnswer: phrases", () => {
  it("reads 'the answer is' case-insensitively and trims the trailing period and dollars", () => {
    expect(extractAnswer("Adding up, THE ANSWER IS 42.")).toEqual({ text: "42", rule: "answer-is" });
    expect(extractAnswer(String.raw`So the answer is $\frac{3}{4}$.`)).toEqual({
      text: String.raw`\frac{3}{4}`,
      rule: "answer-is",
    });
  });

  it("reads 'final answer is' and 'Final Answer:'", () => {
    expect(extractAnswer("Therefore, the final answer is 3.5.")).toEqual({ text: "3.5", rule: "final-answer-is" });
    expect(extractAnswer(String.raw`Final Answer: $\sqrt{2}$`)).toEqual({ text: String.raw`\sqrt{2}`, rule: "final-answer-is" });
  });

  it("takes the last occurrence of either phrase", () => {
    const response = "The answer is 5?\nNo. Recomputing, the final answer is 6.\nDouble-check: the answer is 7.";
    expect(extractAnswer(response)).toEqual({ text: "7", rule: "answer-is" });
    expect(extractAnswer("the answer is 7. Hmm, the final answer is 8.")).toEqual({ text: "8", rule: "final-answer-is" });
  });

  it("stops at the end of the sentence, the line, or a justification", () => {
    expect(extractAnswer("the answer is 3.25. Next we check")?.text).toBe("3.25");
    expect(extractAnswer("the answer is 12\nbecause 3 * 4 = 12")?.text).toBe("12");
    expect(extractAnswer("The answer is 3/4 because the events are independent.")?.text).toBe("3/4");
    expect(extractAnswer("the answer is: **42**")?.text).toBe("42");
  });
});

describe("extractAnswer: bare answers", () => {
  it("takes a bare answer, a LaTeX string, or a short phrase whole", () => {
    expect(extractAnswer("3/4")).toEqual({ text: "3/4", rule: "whole-text" });
    expect(extractAnswer(String.raw`\frac{3}{4}`)).toEqual({ text: String.raw`\frac{3}{4}`, rule: "whole-text" });
    expect(extractAnswer("  twenty-one ")).toEqual({ text: "twenty-one", rule: "whole-text" });
    expect(extractAnswer(String.raw`5 \text{ cm}`)?.rule).toBe("whole-text");
  });

  it("takes a long mathematical gold answer whole", () => {
    const polynomial = Array.from({ length: 80 }, (_, i) => `${i + 1}x^{${i}}`).join("+");
    expect(extractAnswer(polynomial)).toEqual({ text: polynomial, rule: "whole-text" });
  });

  it("returns null when there is no answer", () => {
    expect(extractAnswer("")).toBeNull();
    expect(extractAnswer("   \n ")).toBeNull();
    expect(extractAnswer("We first draw the figure and then consider the symmetry of the triangle.")).toBeNull();
    expect(extractAnswer("The answer is")).toBeNull();
  });
});
