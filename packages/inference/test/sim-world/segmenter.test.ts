import { createRng, locateTaggedChunks, SegmentationError, buildChunkSegmenterPrompt, solutionFromTaggedOutput } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { SimPromptError } from "../../src/sim/model";
import { createSimSegmenter, segmentSolution } from "../../src/sim/models";
import { generateProblem, sampleSolutionChunks } from "../../src/sim/world";
import { chat, generate, tagged } from "./helpers";

const segmenterPrompt = (solution: string) => chat(buildChunkSegmenterPrompt({ solution }).text);

const GSM8K_STYLE = [
  "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and uses 4 for baking muffins. So she uses 3 + 4 = 7 eggs.",
  "She has 16 - 7 = 9 eggs left. She sells them for $2 each.\nSo she makes 9 * 2 = $18 per day.",
  "#### 18",
].join("\n\n");

const STEP_MARKED = "Step 1: Find the eggs used: 3 + 4 = 7.\nStep 2: Find the eggs left: 16 - 7 = 9.\nStep 3: Multiply by the price: 9 * 2 = 18.\nThe answer is \\boxed{18}.";

describe("sim-segmenter", () => {
  const segmenter = createSimSegmenter();

  it("cuts at paragraphs, step markers and computing sentences", () => {
    expect(segmentSolution(GSM8K_STYLE)).toEqual([
      "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and uses 4 for baking muffins. So she uses 3 + 4 = 7 eggs.",
      "She has 16 - 7 = 9 eggs left.",
      "She sells them for $2 each.\nSo she makes 9 * 2 = $18 per day.",
      "#### 18",
    ]);
    expect(segmentSolution(STEP_MARKED)).toEqual([
      "Step 1: Find the eggs used: 3 + 4 = 7.",
      "Step 2: Find the eggs left: 16 - 7 = 9.",
      "Step 3: Multiply by the price: 9 * 2 = 18.\nThe answer is \\boxed{18}.",
    ]);
    expect(segmentSolution("First we add. 2 + 2 = 4. So the answer is \\boxed{4}.")).toEqual(["First we add. 2 + 2 = 4.", "So the answer is \\boxed{4}."]);
  });

  it("reproduces the solution exactly when it does not fault", () => {
    const solutions = [GSM8K_STYLE, STEP_MARKED, "  One line, no computation.  ", "A.\r\n\r\nB = 1 + 1 = 2.\tC."];
    for (let seed = 0; seed < 30; seed++) {
      const problem = generateProblem(seed);
      solutions.push(solutionFromTaggedOutput(tagged(sampleSolutionChunks(problem, { errorRate: 0.3, recoveryRate: 0.3 }, createRng(seed)))).text);
    }
    solutions.forEach((solution, seed) => {
      const answer = generate(segmenter, segmenterPrompt(solution), seed);
      expect(locateTaggedChunks(solution, answer).length).toBeGreaterThan(0);
    });
  });

  it("with faultRate 1 alters one character, which the reconstruction check rejects", () => {
    const faulty = createSimSegmenter({ faultRate: 1 });
    for (let seed = 0; seed < 50; seed++) {
      const answer = generate(faulty, segmenterPrompt(GSM8K_STYLE), seed);
      expect(() => locateTaggedChunks(GSM8K_STYLE, answer)).toThrow(SegmentationError);
      expect(answer.length).toBe(generate(segmenter, segmenterPrompt(GSM8K_STYLE), seed).length);
    }
    const sometimes = createSimSegmenter({ faultRate: 0.3 });
    let faults = 0;
    for (let seed = 0; seed < 1000; seed++) {
      try {
        locateTaggedChunks(GSM8K_STYLE, generate(sometimes, segmenterPrompt(GSM8K_STYLE), seed));
      } catch {
        faults++;
      }
    }
    expect(Math.abs(faults / 1000 - 0.3)).toBeLessThan(0.06);
    // Greedy: the more likely outcome.
    expect(() => locateTaggedChunks(GSM8K_STYLE, generate(sometimes, segmenterPrompt(GSM8K_STYLE), 0, 0))).not.toThrow();
  });

  it("reads only the chunk-segmenter prompt", () => {
    expect(() => generate(segmenter, chat("Split this: 1 + 1 = 2"))).toThrow(SimPromptError);
    expect(generate(segmenter, { kind: "completion", prompt: buildChunkSegmenterPrompt({ solution: "1 + 1 = 2." }).text })).toBe("<chunk>1 + 1 = 2.</chunk>");
  });
});
