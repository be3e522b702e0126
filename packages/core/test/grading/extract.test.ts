import { describe, expect, it } from "vitest";
import { extractAnswer, RULES_OF_MODE } from "../../src/grading";

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

  it("prefers a box over an earlier answer phrase, and over a later one that states no value", () => {
    expect(extractAnswer(String.raw`The answer is 4? We get \boxed{3}.`)).toEqual({ text: "3", rule: "boxed" });
    expect(extractAnswer(String.raw`\boxed{3}. The answer is clear.`)).toEqual({ text: "3", rule: "boxed" });
  });

  it("lets a final answer stated after the last box win: the box held an intermediate result", () => {
    const response = String.raw`interest $0.05 \cdot 10{,}200 \cdot \frac12 = \boxed{255}$, so she has $10,455. Final Answer: The final answer is $10,455$. I hope it is correct.`;
    expect(extractAnswer(response)).toEqual({ text: "10,455", rule: "final-answer-is" });
  });

  it("reads several boxes listed together as one answer, in order", () => {
    expect(extractAnswer(String.raw`\boxed{1}, \boxed{2}, \boxed{3}`)).toEqual({ text: "1, 2, 3", rule: "boxed" });
    expect(extractAnswer(String.raw`\boxed{1} and \boxed{2}`)).toEqual({ text: "1, 2", rule: "boxed" });
    expect(extractAnswer(String.raw`$$\boxed{(3, 3)} \text{ for part (a) and } \boxed{(1, 1)}$$`)).toEqual({ text: "(3, 3), (1, 1)", rule: "boxed" });
    expect(extractAnswer(String.raw`\(y_1 = \boxed{2x}\) and \(y_2 = \boxed{3x}\)`)).toEqual({ text: "2x, 3x", rule: "boxed" });
    // Boxes with reasoning between them are separate answers: the last one stands.
    expect(extractAnswer(String.raw`\boxed{1} no no no no no \boxed{2}`)).toEqual({ text: "2", rule: "boxed" });
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

describe("extractAnswer: answer labels", () => {
  it("reads 'Answer:' and '**Answer:**', and takes the value a prose answer states", () => {
    expect(extractAnswer("Answer: 42")).toEqual({ text: "42", rule: "answer-label" });
    expect(extractAnswer("**Answer:** Verna received $7.00 in change.")).toEqual({ text: "7.00", rule: "answer-label" });
    expect(extractAnswer("Final Answer: The largest $n$ is 34.")).toEqual({ text: "34", rule: "final-answer-is" });
  });
});

describe("extractAnswer: lenient fallbacks", () => {
  it("takes the last math environment of the concluding sentence", () => {
    const response = String.raw`Using the reference angle, the value of \(\csc(-120^\circ)\) is \(-\frac{2\sqrt{3}}{3}\).`;
    expect(extractAnswer(response)).toEqual({ text: String.raw`-\frac{2\sqrt{3}}{3}`, rule: "last-math" });
    expect(extractAnswer("We find $x = 3$.\n\nThus the solution is $x = 5$.")).toEqual({ text: "x = 5", rule: "last-math" });
    // "$1$, $2$ and $3$" is one answer.
    expect(extractAnswer("The roots are $1$, $2$ and $3$.")).toEqual({ text: "1, 2, 3", rule: "last-math" });
  });

  it("takes the value after the sentence's last copula, over a math environment that only names what is asked", () => {
    const response = String.raw`Therefore, the degree of the polynomial \((ax^6+bx^8)(x^5+f)\) is 15.`;
    expect(extractAnswer(response)).toEqual({ text: "15", rule: "concluding-number" });
  });

  it("takes the number the concluding sentence states, and a currency amount as a number", () => {
    expect(extractAnswer("Therefore, the length of the red rope is 20 centimeters.")).toEqual({ text: "20", rule: "concluding-number" });
    expect(extractAnswer("She sold 16 - 3 - 4 = 9 eggs, making 9 * 2 = $18 every day.")).toEqual({ text: "18", rule: "concluding-number" });
    expect(extractAnswer("So the total is 20, which is 4 more than 16.")).toEqual({ text: "20", rule: "concluding-number" });
    expect(extractAnswer("In all, Vince stapled a total of 2,280 reports.")).toEqual({ text: "2,280", rule: "concluding-number" });
  });

  it("falls back to the last number when the concluding sentence has none", () => {
    expect(extractAnswer("We add 12 and 8 to get 20.\n\nThat settles the question.")).toEqual({ text: "20", rule: "last-number" });
  });

  it("does not read the digits of a word as a number", () => {
    expect(extractAnswer("The code is AZYUK2A and nothing else is known here today.")).toBeNull();
  });
});

describe("extractAnswer: modes", () => {
  it("in boxed mode reads only boxes and answer phrases", () => {
    expect(extractAnswer(String.raw`so \boxed{7}`, "boxed")).toEqual({ text: "7", rule: "boxed" });
    expect(extractAnswer("so the answer is 7.", "boxed")).toEqual({ text: "7", rule: "answer-is" });
    expect(extractAnswer("Therefore, the length of the red rope is 20 centimeters.", "boxed")).toBeNull();
    expect(extractAnswer("We have 5 + 15 = 20", "boxed")).toBeNull();
    expect(extractAnswer("20", "boxed")).toBeNull();
  });

  it("in lenient mode reads a cut-off computation's last number: why rollouts grade in boxed mode", () => {
    expect(extractAnswer("Adding the amounts of both days together, 5 + 15 = 20")).toEqual({ text: "20", rule: "concluding-number" });
  });

  it("lists every rule of a mode in the order they are tried", () => {
    expect(RULES_OF_MODE.boxed).toEqual(["boxed", "fbox", "final-answer-is", "answer-is", "answer-label"]);
    expect(RULES_OF_MODE.lenient.slice(0, 5)).toEqual(RULES_OF_MODE.boxed);
    expect(RULES_OF_MODE.lenient.slice(5)).toEqual(["emphasised", "last-math", "whole-text", "concluding-number", "last-number"]);
  });
});
