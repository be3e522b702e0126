import { parseChunkTags } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { createSimPolicy } from "../../src/sim/models";
import { generateProblem, initialQValue, parseProblem, trueQValue, trueQValues, truthOfSolution, valueOfState, type ArithProblem } from "../../src/sim/world";
import { chat, chatContinuing, MIA_RIGHT, MIA_TEXT, policyPrompt, tagged, tolerance } from "./helpers";

const mia = parseProblem(MIA_TEXT);
const WRONG_FIRST = "She buys 5 more: 12 + 5 = 18.";

describe("true Q-values", () => {
  it("without recovery: 0 after an unrecovered error, (1 − p)^r on a right prefix", () => {
    const rates = { errorRate: 0.15, recoveryRate: 0 };
    expect(initialQValue(mia, rates)).toBeCloseTo(0.85 ** 3, 12); // 0.614125
    expect(trueQValue(mia, [], rates)).toBeCloseTo(0.614125, 12);
    expect(trueQValue(mia, MIA_RIGHT.slice(0, 1), rates)).toBeCloseTo(0.85 ** 2, 12); // 0.7225
    expect(trueQValue(mia, MIA_RIGHT.slice(0, 2), rates)).toBeCloseTo(0.85, 12);
    expect(trueQValue(mia, MIA_RIGHT.slice(0, 3), rates)).toBe(1);
    expect(trueQValue(mia, [WRONG_FIRST], rates)).toBe(0);
    expect(trueQValue(mia, [WRONG_FIRST, "She gives away 3: 18 - 3 = 15."], rates)).toBe(0);
    const six = generateProblem({ seed: 3, steps: 6 });
    expect(initialQValue(six, { errorRate: 0.3, recoveryRate: 0 })).toBeCloseTo(0.7 ** 6, 12);
  });

  it("with recovery: the two-state DP, computed by hand", () => {
    // p = 0.2, q = 0.5. V(0,R) = 1, V(0,W) = 0.
    // V(1,R) = 0.8·1 + 0.2·0 = 0.8          V(1,W) = 0.5·1 + 0.5·0 = 0.5
    // V(2,R) = 0.8·0.8 + 0.2·0.5 = 0.74     V(2,W) = 0.5·0.8 + 0.5·0.5 = 0.65
    // V(3,R) = 0.8·0.74 + 0.2·0.65 = 0.722  V(3,W) = 0.5·0.74 + 0.5·0.65 = 0.695
    const rates = { errorRate: 0.2, recoveryRate: 0.5 };
    expect(valueOfState(2, true, rates)).toBeCloseTo(0.74, 12);
    expect(valueOfState(3, false, rates)).toBeCloseTo(0.695, 12);
    expect(initialQValue(mia, rates)).toBeCloseTo(0.722, 12);
    const solution = [
      WRONG_FIRST, // wrong, 2 steps left: V(2,W) = 0.65
      "She gives away 3: 18 - 3 = 15.", // wrong, 1 step left: V(1,W) = 0.5
      "Wait, let me recheck: 12 + 5 = 17, not 18, then 17 - 3 = 14. So now 14 × 2 = 28.", // right, none left: 1
      "So the answer is \\boxed{28}.", // right answer: 1
    ];
    const { q0, q } = trueQValues(mia, solution, rates);
    expect(q0).toBeCloseTo(0.722, 12);
    expect(q.map((value) => Number(value.toFixed(12)))).toEqual([0.65, 0.5, 1, 1]);
    expect(trueQValue(mia, MIA_RIGHT.slice(0, 1), rates)).toBeCloseTo(0.74, 12);
  });

  it("a given answer is worth 1 if right and 0 if wrong", () => {
    const rates = { errorRate: 0.5, recoveryRate: 0.5 };
    expect(trueQValue(mia, MIA_RIGHT, rates)).toBe(1);
    expect(trueQValue(mia, [...MIA_RIGHT.slice(0, 3), "So the answer is \\boxed{27}."], rates)).toBe(0);
    expect(() => valueOfState(1, true, { errorRate: 1.5, recoveryRate: 0 })).toThrow(RangeError);
  });
});

describe("sampled continuations agree with the true Q-values", () => {
  const N = 4000;
  const rates = { errorRate: 0.3, recoveryRate: 0.25 };
  const policy = createSimPolicy(rates);

  function shareCorrect(problem: ArithProblem, prefix: readonly string[]): number {
    let correct = 0;
    for (let seed = 0; seed < N; seed++) {
      const prompt = prefix.length === 0 ? chat(policyPrompt(problem.text)) : chatContinuing(policyPrompt(problem.text), tagged(prefix));
      const continuation = policy.generate({ prompt, seed, temperature: 1 });
      const full = prefix.length === 0 ? continuation : tagged(prefix) + continuation;
      if (truthOfSolution(problem, parseChunkTags(full).map((chunk) => chunk.text)).finalAnswerCorrect) correct++;
    }
    return correct / N;
  }

  const six = generateProblem({ seed: 11, steps: 6 });
  const cases: Array<[string, ArithProblem, string[]]> = [
    ["the bare problem (Q_0)", mia, []],
    ["a right prefix", mia, MIA_RIGHT.slice(0, 1)],
    ["a prefix right after an error", mia, [WRONG_FIRST]],
    ["a six-step problem", six, []],
  ];
  it.each(cases)("%s", (_name, problem, prefix) => {
    const q = trueQValue(problem, prefix, rates);
    expect(Math.abs(shareCorrect(problem, prefix) - q)).toBeLessThan(tolerance(q, N));
  });
});
