import { createRng, majorityVerdict, predictFirstError, type Label, type TiePolicy, type Verdict } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { expectedSimJudgeScores, sampleJudgeVerdict, SIM_JUDGE_PRESETS, type SimJudgePresetId } from "../../src/sim/models";

/** Solutions of 3–10 chunks, a third of them correct, first errors anywhere. */
function solutions(count: number, seed: number) {
  const rng = createRng(seed);
  return Array.from({ length: count }, () => {
    const chunks = 3 + rng.nextInt(8);
    return { chunks, trueFirstError: rng.nextFloat() < 1 / 3 ? -1 : rng.nextInt(chunks) };
  });
}

/** The benchmark's reading, simulated: each chunk's K samples drawn by the judge's own sampler, voted, read at the first Negative. */
function simulate(id: SimJudgePresetId, items: ReturnType<typeof solutions>, samples: number, tiePolicy: TiePolicy, repeats: number) {
  const rng = createRng(7);
  let rightErr = 0;
  let nErr = 0;
  let rightCor = 0;
  let nCor = 0;
  for (let r = 0; r < repeats; r++) {
    for (const s of items) {
      const votes: Verdict[] = [];
      for (let i = 0; i < s.chunks; i++) {
        // After the first error the truth does not matter to the reading: the vote at the error decides it.
        const truth: Label = s.trueFirstError >= 0 && i >= s.trueFirstError ? "Negative" : "Positive";
        const drawn = Array.from({ length: samples }, () => sampleJudgeVerdict(SIM_JUDGE_PRESETS[id], truth, rng).verdict);
        votes.push(majorityVerdict(drawn, tiePolicy).verdict);
      }
      const prediction = predictFirstError(votes);
      if (s.trueFirstError < 0) {
        nCor += 1;
        if (prediction === -1) rightCor += 1;
      } else {
        nErr += 1;
        if (prediction === s.trueFirstError) rightErr += 1;
      }
    }
  }
  return { acc_err: rightErr / nErr, acc_cor: rightCor / nCor };
}

describe("expected ProcessBench scores of a simulated judge", () => {
  const items = solutions(60, 3);
  for (const [id, samples, tiePolicy] of [
    ["sim-judge-medium", 1, "Negative"],
    ["sim-judge-weak", 3, "Negative"],
    ["sim-judge-strong", 2, "Positive"],
  ] as const) {
    it(`${id}, K=${samples}, ties ${tiePolicy}: the closed form matches the judge's own sampler, read as the run reads it`, () => {
      const expected = expectedSimJudgeScores(id, items, { samples, tiePolicy })!;
      const measured = simulate(id, items, samples, tiePolicy, 400);
      // 400 × 60 solutions: the standard error of each share is under 0.005.
      expect(Math.abs(expected.acc_err! - measured.acc_err)).toBeLessThan(0.02);
      expect(Math.abs(expected.acc_cor! - measured.acc_cor)).toBeLessThan(0.02);
      expect(expected.f1).toBeCloseTo((2 * expected.acc_err! * expected.acc_cor!) / (expected.acc_err! + expected.acc_cor!), 12);
    });
  }

  it("a correct solution is right only if every chunk is voted Positive: the medium judge's acc_cor falls with the chunk count", () => {
    const short = expectedSimJudgeScores("sim-judge-medium", [{ chunks: 2, trueFirstError: -1 }], { samples: 1, tiePolicy: "Negative" })!;
    const long = expectedSimJudgeScores("sim-judge-medium", [{ chunks: 10, trueFirstError: -1 }], { samples: 1, tiePolicy: "Negative" })!;
    const perChunk = 0.98 * (0.8 + 0.2 * 0.05);
    expect(short.chunkPositiveGivenPositive).toBeCloseTo(perChunk, 12);
    expect(short.acc_cor).toBeCloseTo(perChunk ** 2, 12);
    expect(long.acc_cor).toBeCloseTo(perChunk ** 10, 12);
    expect(long.acc_err).toBeNull();
  });

  it("no expectation for a judge with systematic errors or a model that is not a built-in preset", () => {
    expect(expectedSimJudgeScores("sim-judge-correlated", items, { samples: 1, tiePolicy: "Negative" })).toBeNull();
    expect(expectedSimJudgeScores("Qwen2.5-7B", items, { samples: 1, tiePolicy: "Negative" })).toBeNull();
  });
});
