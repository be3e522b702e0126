import { describe, expect, it } from "vitest";
import {
  applyOperation,
  generateProblem,
  MAX_RUNNING_VALUE,
  parseProblem,
  parseProblemAtStart,
  PROBLEM_LAYOUTS,
  tryParseProblem,
  WorldParseError,
  type OperationKind,
} from "../../src/sim/world";
import { MIA_TEXT } from "./helpers";

describe("arithmetic-world problems", () => {
  it("parses the example problem exactly", () => {
    const problem = parseProblem(MIA_TEXT);
    expect(problem).toMatchObject({ name: "Mia", pronoun: "she", item: "marbles", layout: "then-list", start: 12, answer: 28 });
    expect(problem.operations.map(({ kind, operand }) => [kind, operand])).toEqual([
      ["add", 5],
      ["subtract", 3],
      ["multiply", 2],
    ]);
    expect(problem.values).toEqual([12, 17, 14, 28]);
    expect(problem.text).toBe(MIA_TEXT);
  });

  it("round-trips 1,000 generated problems through their text, with small positive integer results", () => {
    const layouts = new Set<string>();
    const kinds = new Set<OperationKind>();
    const phrasings = new Set<string>();
    for (let seed = 0; seed < 1000; seed++) {
      const problem = generateProblem(seed);
      expect(parseProblem(problem.text)).toEqual(problem);
      expect(problem.operations.length).toBeGreaterThanOrEqual(3);
      expect(problem.operations.length).toBeLessThanOrEqual(6);
      expect(problem.values).toHaveLength(problem.operations.length + 1);
      problem.operations.forEach((operation, i) => {
        expect(applyOperation(operation.kind, problem.values[i]!, operation.operand)).toBe(problem.values[i + 1]);
        kinds.add(operation.kind);
        phrasings.add(operation.phrasing);
      });
      for (const value of problem.values) {
        expect(Number.isInteger(value)).toBe(true);
        expect(value).toBeGreaterThanOrEqual(1);
        expect(value).toBeLessThanOrEqual(MAX_RUNNING_VALUE);
      }
      expect(problem.answer).toBe(problem.values.at(-1));
      layouts.add(problem.layout);
    }
    expect([...layouts].sort()).toEqual([...PROBLEM_LAYOUTS].sort());
    expect([...kinds].sort()).toEqual(["add", "divide", "multiply", "subtract"]);
    expect(phrasings.size).toBeGreaterThanOrEqual(12);
  });

  it("is deterministic in the seed, and different seeds give different problems", () => {
    expect(generateProblem(42)).toEqual(generateProblem(42));
    expect(generateProblem("run-7")).toEqual(generateProblem("run-7"));
    const texts = new Set(Array.from({ length: 200 }, (_, seed) => generateProblem(seed).text));
    expect(texts.size).toBeGreaterThan(195);
    expect(generateProblem(42).id).toMatch(/^arith-[0-9a-f]{8}$/);
  });

  it("takes an exact number of steps or a range", () => {
    for (let seed = 0; seed < 50; seed++) {
      expect(generateProblem({ seed, steps: 1 }).operations).toHaveLength(1);
      expect(generateProblem({ seed, steps: 8 }).operations).toHaveLength(8);
      const ranged = generateProblem({ seed, steps: [2, 3] }).operations.length;
      expect(ranged === 2 || ranged === 3).toBe(true);
      const one = generateProblem({ seed, steps: 1 });
      expect(parseProblem(one.text)).toEqual(one);
    }
    expect(() => generateProblem({ seed: 1, steps: 0 })).toThrow(RangeError);
    expect(() => generateProblem({ seed: 1, steps: [4, 3] })).toThrow(RangeError);
  });

  it("rejects text that is not exactly a problem of this world", () => {
    expect(tryParseProblem(MIA_TEXT.replace("buys 5 more", "purchases 5 more"))).toBeNull();
    expect(tryParseProblem(`${MIA_TEXT} `)).toBeNull();
    expect(tryParseProblem("Natalia sold clips to 48 of her friends in April. How many clips did she sell?")).toBeNull();
    // 13 does not split evenly into 2 groups: not a problem this world writes.
    expect(tryParseProblem("Leo has 13 cards. He splits what he has into 2 equal groups and keeps one group. How many cards does he have now?")).toBeNull();
    expect(() => parseProblem("What is 2 + 2?")).toThrow(WorldParseError);
  });

  it("finds a problem at the start of a longer text", () => {
    const found = parseProblemAtStart(`${MIA_TEXT}\n<chunk>She buys`);
    expect(found?.problem.answer).toBe(28);
    expect(found?.rest).toBe("\n<chunk>She buys");
  });
});
