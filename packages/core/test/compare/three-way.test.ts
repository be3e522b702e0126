import { describe, expect, it } from "vitest";
import { judgeCalibration, threeWayAgreement, threeWayPattern, type ThreeWayChunk } from "../../src/compare/three-way";

const chunk = (n: number, judge: ThreeWayChunk["judge"], mc: ThreeWayChunk["mc"], human: ThreeWayChunk["human"]): ThreeWayChunk => ({
  chunkId: `c${n}`,
  solutionId: "t",
  externalId: "x-0",
  index: n,
  judge,
  judgeShare: null,
  mc,
  human,
});
const P = "Positive";
const N = "Negative";
const chunks = [
  chunk(1, P, P, 1), // unanimous
  chunk(2, N, N, -1), // unanimous
  chunk(3, P, N, 0), // all differ: neutral human, judge ≠ MC
  chunk(4, N, N, 1), // human alone
  chunk(5, N, P, 1), // judge alone
  chunk(6, P, N, 1), // MC alone
  chunk(7, "unparseable", P, -1), // all differ
  chunk(8, P, P, 0), // unanimous: neutral reads as Positive
  chunk(9, P, null, 1), // judge × human only
  chunk(10, null, N, -1), // MC × human only
];

describe("judge × Monte-Carlo × human agreement", () => {
  const result = threeWayAgreement(chunks);

  it("counts each pair on the chunks having both, the human binarised", () => {
    expect(result.judgeVsMc.matrix).toEqual({ counts: { Positive: { Positive: 2, Negative: 1, unparseable: 1 }, Negative: { Positive: 2, Negative: 2, unparseable: 0 } }, total: 8 });
    expect(result.judgeVsHuman.matrix).toEqual({ counts: { Positive: { Positive: 5, Negative: 2, unparseable: 0 }, Negative: { Positive: 0, Negative: 1, unparseable: 1 } }, total: 9 });
    expect(result.mcVsHuman.matrix).toEqual({ counts: { Positive: { Positive: 3, Negative: 3, unparseable: 0 }, Negative: { Positive: 1, Negative: 2, unparseable: 0 } }, total: 9 });
  });

  it("gives Cohen's kappa per pair", () => {
    // judge × MC: p_o = 4/8, chance (4·4 + 4·3)/64 → κ = (32 − 28)/(64 − 28) = 1/9
    expect(result.judgeVsMc.kappa).toBeCloseTo(1 / 9, 12);
    // judge × human: agreements 6 of 9, chance (7·5 + 2·3)/81 → κ = (54 − 41)/(81 − 41) = 13/40
    expect(result.judgeVsHuman.kappa).toBeCloseTo(13 / 40, 12);
    // MC × human: agreements 5 of 9, chance (6·4 + 3·5)/81 → κ = (45 − 39)/(81 − 39) = 1/7
    expect(result.mcVsHuman.kappa).toBeCloseTo(1 / 7, 12);
    expect(threeWayAgreement([]).judgeVsMc).toMatchObject({ kappa: null, observedAgreement: null });
  });

  it("lists the non-unanimous chunks having all three readings with their pattern", () => {
    expect(result.complete).toBe(8);
    expect(result.unanimous).toBe(3);
    expect(result.disagreements.map((c) => [c.index, c.pattern])).toEqual([
      [3, "all_differ"],
      [4, "human_alone"],
      [5, "judge_alone"],
      [6, "mc_alone"],
      [7, "all_differ"],
    ]);
    expect(result.patterns).toEqual({ all_differ: 2, human_alone: 1, judge_alone: 1, mc_alone: 1 });
    expect(threeWayPattern(N, N, 0)).toBe("human_alone");
    expect(threeWayPattern("unparseable", N, -1)).toBe("judge_alone");
  });
});

describe("judge calibration against a reference label", () => {
  it("bins the vote share and skips chunks lacking a share or a reference", () => {
    const report = judgeCalibration(
      [
        { judgeShare: 1, reference: "Positive" },
        { judgeShare: 0.75, reference: "Negative" },
        { judgeShare: 0.25, reference: "Positive" },
        { judgeShare: 0, reference: "Negative" },
        { judgeShare: null, reference: "Positive" },
        { judgeShare: 0.5, reference: null },
      ],
      { bins: 2 },
    );
    // [0, ½): mean 0.125, observed ½; [½, 1]: mean 0.875, observed ½ → ECE = ½·0.375 + ½·0.375
    expect(report.bins.map((b) => [b.count, b.meanPredicted, b.observedRate])).toEqual([
      [2, 0.125, 0.5],
      [2, 0.875, 0.5],
    ]);
    expect(report.expectedCalibrationError).toBe(0.375);
    expect(report).toMatchObject({ total: 4, skipped: 2 });
  });
});
