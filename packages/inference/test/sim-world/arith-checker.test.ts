import { parseVerdict } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { SimPromptError } from "../../src/sim/model";
import { checkArithmetic, createArithChecker, findEquations } from "../../src/sim/models";
import { chat, generate, judgePrompt } from "./helpers";

const verdicts = (text: string) => findEquations(text).map((equation) => [equation.text, equation.correct]);

describe("arithmetic equations in free text", () => {
  it("checks the operators and number formats people write", () => {
    expect(verdicts("She buys 5 more: 12 + 5 = 17.")).toEqual([["12 + 5 = 17", true]]);
    expect(verdicts("3 × 4 = 13")).toEqual([["3 × 4 = 13", false]]);
    expect(verdicts("48/2 = 24 and 48+24=72")).toEqual([
      ["48/2 = 24", true],
      ["48+24=72", true],
    ]);
    expect(verdicts("$1,200 x 3 = $3,600")).toEqual([["$1,200 x 3 = $3,600", true]]);
    expect(verdicts("5x3=15, 4 · 5 = 20, 1,000 ÷ 8 = 125, 7 − 2 = 5")).toEqual([
      ["5x3=15", true],
      ["4 · 5 = 20", true],
      ["1,000 ÷ 8 = 125", true],
      ["7 − 2 = 5", true],
    ]);
    expect(verdicts("$15 - $3.50 = $11.50")).toEqual([["$15 - $3.50 = $11.50", true]]);
    expect(verdicts("20% of $50 is 0.2 * 50 = $10, and 50% * 40 = 20")).toEqual([
      ["0.2 * 50 = $10", true],
      ["50% * 40 = 20", true],
    ]);
    expect(verdicts("2 + 3 + 4 = 9 = 10")).toEqual([["2 + 3 + 4 = 9 = 10", false]]);
    expect(verdicts("(3 + 4) × 2 = 14 and -3 + 5 = 2")).toEqual([
      ["(3 + 4) × 2 = 14", true],
      ["-3 + 5 = 2", true],
    ]);
    expect(verdicts("So \\( 3 \\times \\$1,200 = \\$3,600 \\) and $12 \\times 3 = 35$.")).toEqual([
      ["3 \\times \\$1,200 = \\$3,600", true],
      ["$12 \\times 3 = 35", false],
    ]);
  });

  it("reads equations the way ProcessBench solutions write them", () => {
    expect(verdicts("First, calculate 25% of the cost price: 25% of $1.60 = 0.25 * $1.60 = $0.40.")).toEqual([["0.25 * $1.60 = $0.40", true]]);
    expect(verdicts("\\[ \\text{Alyana's Age} = \\text{Chenny's Age} - 4 = 10 - 4 = 6 \\]")).toEqual([["10 - 4 = 6", true]]);
    expect(verdicts("\\[ 4 \\times 2^3 = 4 \\times 8 = 32 \\text{ feet} \\]")).toEqual([["4 \\times 2^3 = 4 \\times 8 = 32", true]]);
    expect(verdicts("(4 / 20) * 100 = 0.2 * 100 = 20%")).toEqual([["(4 / 20) * 100 = 0.2 * 100 = 20%", true]]);
    expect(verdicts("\\(12 + 5 = 18\\)")).toEqual([["12 + 5 = 18", false]]);
    expect(verdicts("\\( f^{-1}(12) = 12 - 1 = 11 \\)")).toEqual([["12 - 1 = 11", true]]);
  });

  it("accepts rounded decimals but not rounded whole numbers", () => {
    expect(verdicts("10 / 3 = 3.33")).toEqual([["10 / 3 = 3.33", true]]);
    expect(verdicts("10 / 3 = 3.34")).toEqual([["10 / 3 = 3.34", false]]);
    expect(verdicts("10 / 3 = 3")).toEqual([["10 / 3 = 3", false]]);
  });

  it("ignores what is not an equation between numbers", () => {
    expect(findEquations("Let x = 5. Then 2x + 3 = 13. It takes 3 hours * 4 = 12 minutes.")).toEqual([]);
    expect(findEquations("Total = 17. Step 2: we have 17 apples, a 3-page letter, 2023-2024.")).toEqual([]);
    expect(findEquations("The ratio is \\frac{1}{2} \\times 80 = 40.")).toEqual([]);
    expect(findEquations("a12 + 3 = 15")).toEqual([]);
  });

  it("names the wrong equation", () => {
    const check = checkArithmetic("So 3 + 4 = 7 and 9 * 2 = 16.");
    expect(check.correct).toBe(false);
    expect(check.wrong.map((equation) => equation.wrongSide)).toEqual([{ index: 1, previous: "9 * 2", written: "16", expected: 18 }]);
  });
});

describe("arith-checker", () => {
  const checker = createArithChecker();
  const problem =
    "Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?";
  const steps = [
    "To find out how much Janet makes every day at the farmers' market, we need to calculate the number of eggs she sells and multiply it by the price per egg.",
    "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and uses 4 for baking muffins. So, the total number of eggs used is 3 + 4 = 7.",
    "The number of eggs left to sell is 16 - 7 = 9.",
    "She sells each egg for $2, so the amount she makes is 9 * $2 = $16.",
    "Therefore, Janet makes $16 every day at the farmers' market.\n\nThe final answer is: $\\boxed{16}$",
  ];
  const judge = (i: number) => generate(checker, chat(judgePrompt(problem, steps.slice(0, i), steps[i]!)), i, 1);

  it("judges real-looking GSM8K paragraphs by their arithmetic", () => {
    expect(steps.map((_, i) => parseVerdict(judge(i)).verdict)).toEqual(["Positive", "Positive", "Positive", "Negative", "Positive"]);
    expect(judge(3)).toContain("9 * $2 = $16 is wrong: 9 * $2 is 18, not $16");
    expect(judge(0)).toContain("no arithmetic equation");
    const james = "James writes 3*2=6 pages each time. He writes 6*2=12 pages a week. So he writes 12*52=624 pages a year.";
    expect(parseVerdict(generate(checker, chat(judgePrompt("James writes letters.", [], james)))).verdict).toBe("Positive");
  });

  it("is deterministic whatever the seed and temperature, and reads only judge prompts", () => {
    expect(generate(checker, chat(judgePrompt(problem, [], steps[3]!)), 1, 0)).toBe(generate(checker, chat(judgePrompt(problem, [], steps[3]!)), 99, 1));
    expect(() => generate(checker, chat("What is 9 * 2?"))).toThrow(SimPromptError);
  });
});
