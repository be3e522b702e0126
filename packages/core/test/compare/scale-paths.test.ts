import { describe, expect, it } from "vitest";
import { jointOutcomes } from "../../src/compare/checkpoints";
import { judgeMcAgreementOfGroups, readingAgreement, readingAgreementFromMatrix, threeWayAgreement, type ThreeWayChunk } from "../../src/compare/three-way";
import { verifierScaling, verifierScalingReplay, type ScalingSolution, type VerifierScalingOptions } from "../../src/compare/verifier-scaling";
import { predictFirstError } from "../../src/judge/solution";
import type { Verdict } from "../../src/judge/verdict";
import { majorityVerdict } from "../../src/judge/voting";
import { scoreProcessBench, type ProcessBenchGold } from "../../src/processbench/metrics";
import { calibrationReport } from "../../src/stats/calibration";
import { confusionMatrix } from "../../src/stats/confusion";
import { createRng, sampleWithoutReplacement } from "../../src/stats/random";

/**
 * The counted and paged forms the compare views use at scale give exactly
 * what the item-by-item forms give on the same input.
 */

const VERDICTS: Verdict[] = ["Positive", "Negative", "unparseable"];

describe("tallied resample draws", () => {
  it("tallyInts counts the codes of exactly the indices fillInts draws, and leaves the stream at the same place", () => {
    for (const n of [1, 7, 1000, 65_537]) {
      const codes = Uint8Array.from({ length: n }, (_, i) => (i * 7919) % 13);
      const a = createRng(`tally-${n}`);
      const b = createRng(`tally-${n}`);
      for (let round = 0; round < 3; round++) {
        const drawn = new Int32Array(n);
        a.fillInts(drawn, n);
        const expected = new Int32Array(13);
        for (const i of drawn) expected[codes[i]!]! += 1;
        const counts = new Int32Array(13);
        b.tallyInts(codes, counts);
        expect(Array.from(counts)).toEqual(Array.from(expected));
      }
      expect(a.nextUint32()).toBe(b.nextUint32());
    }
  });

  it("numbers items by their tuple of run codes", () => {
    const { joint, tuples } = jointOutcomes([Uint8Array.from([0, 1, 0, 1, 2]), Uint8Array.from([3, 3, 3, 1, 3])]);
    expect(Array.from(joint)).toEqual([0, 1, 0, 2, 3]);
    expect(tuples.map((t) => Array.from(t))).toEqual([
      [0, 1, 1, 2],
      [3, 3, 1, 3],
    ]);
  });
});

describe("agreement from counts", () => {
  it("gives readingAgreement's matrix, κ and observed agreement from the matrix alone", () => {
    const rng = createRng(5);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + rng.nextInt(40);
      const pairs = Array.from({ length: n }, () => ({ gold: rng.nextInt(2) ? ("Positive" as const) : ("Negative" as const), predicted: VERDICTS[rng.nextInt(trial % 5 === 0 ? 1 : 3)]! }));
      expect(readingAgreementFromMatrix(confusionMatrix(pairs))).toEqual(readingAgreement(pairs));
    }
    expect(readingAgreementFromMatrix(confusionMatrix([]))).toEqual(readingAgreement([]));
  });

  it("judge × MC from grouped chunks equals threeWayAgreement's over the chunks, missing readings left out", () => {
    const rng = createRng(9);
    const chunks: ThreeWayChunk[] = Array.from({ length: 300 }, (_, i) => ({
      chunkId: `c${i}`,
      solutionId: "t",
      externalId: "x",
      index: i,
      judge: rng.nextInt(5) === 0 ? null : VERDICTS[rng.nextInt(3)]!,
      judgeShare: null,
      mc: rng.nextInt(4) === 0 ? null : rng.nextInt(2) ? "Positive" : "Negative",
      human: null,
    }));
    const groups = new Map<string, { judge: Verdict | null; mc: ThreeWayChunk["mc"]; chunks: number }>();
    for (const c of chunks) {
      const key = `${c.judge}|${c.mc}`;
      const group = groups.get(key) ?? { judge: c.judge, mc: c.mc, chunks: 0 };
      group.chunks += 1;
      groups.set(key, group);
    }
    expect(judgeMcAgreementOfGroups([...groups.values()])).toEqual(threeWayAgreement(chunks).judgeVsMc);
  });

  it("a calibration item with a count weighs as that many items", () => {
    const items = [
      { probability: 0.5, outcome: true, count: 3 },
      { probability: 1, outcome: false, count: 2 },
      { probability: 0, outcome: true },
    ];
    const expanded = items.flatMap(({ count = 1, ...item }) => Array.from({ length: count }, () => item));
    expect(calibrationReport(items, { bins: 4 })).toEqual(calibrationReport(expanded, { bins: 4 }));
    expect(() => calibrationReport([{ probability: 0.5, outcome: true, count: 0 }])).toThrow(/count must be a positive integer/);
  });
});

/** The replay as it was written over every solution at once: the reference the paged replay must match. */
function wholeReplay(solutions: readonly ScalingSolution[], options: VerifierScalingOptions) {
  let maxK = Infinity;
  for (const s of solutions) for (const c of s.chunks) if (c.samples.length > 0) maxK = Math.min(maxK, c.samples.length);
  if (maxK === Infinity) return { maxK: 0, solutions: solutions.length, points: [] };
  const gold: ProcessBenchGold[] = solutions.map(({ id, label, subset }) => ({ id, label, ...(subset === undefined ? {} : { subset }) }));
  const ks: number[] = [];
  for (let k = 1; k <= maxK; k *= 2) ks.push(k);
  if (ks[ks.length - 1] !== maxK) ks.push(maxK);
  const points = ks.map((k) => {
    const averages: number[] = [];
    const bySubset = new Map<string, number>();
    let tokens = 0;
    for (let draw = 0; draw < options.draws; draw++) {
      const rng = createRng(`verifier-scaling:${options.seed}:${k}:${draw}`);
      const predictions = new Map<string, number | null>();
      for (const solution of solutions) {
        if (!solution.chunks.some((c) => c.samples.length > 0)) continue;
        const votes: Verdict[] = [];
        for (const chunk of solution.chunks) {
          if (chunk.samples.length === 0) {
            votes.push("Positive");
            continue;
          }
          const drawn = sampleWithoutReplacement(chunk.samples, k, rng);
          tokens += chunk.samples.reduce((m, x) => Math.max(m, x.promptTokens), 0) + drawn.reduce((sum, x) => sum + x.completionTokens, 0);
          const vote = majorityVerdict(drawn.map((x) => x.verdict), options.tiePolicy).verdict;
          votes.push(vote);
          if (vote === "Negative" && options.stopAtFirstNegative) break;
        }
        predictions.set(solution.id, predictFirstError(votes, options.unparseableChunk));
      }
      const score = scoreProcessBench(gold, predictions);
      averages.push(score.average_f1);
      for (const [subset, value] of Object.entries(score.subsets)) bySubset.set(subset, (bySubset.get(subset) ?? 0) + value.f1);
    }
    return {
      k,
      f1: averages.reduce((sum, x) => sum + x, 0) / averages.length,
      f1Range: { min: Math.min(...averages), max: Math.max(...averages) },
      f1BySubset: Object.fromEntries([...bySubset].map(([subset, sum]) => [subset, sum / options.draws])),
      tokensPerSolution: tokens / options.draws / solutions.length,
    };
  });
  return { maxK, solutions: solutions.length, points };
}

describe("Maj@K replay page by page", () => {
  it("gives exactly the whole-dataset replay, in one page or many", () => {
    const rng = createRng(21);
    const subsets = ["gsm8k", "math", "omnimath"];
    const solutions: ScalingSolution[] = Array.from({ length: 120 }, (_, s) => ({
      id: `${subsets[s % 3]}-${s}`,
      label: rng.nextInt(6) - 1,
      ...(s % 7 === 0 ? {} : { subset: subsets[s % 3] }),
      chunks: Array.from({ length: 1 + rng.nextInt(6) }, () => ({
        samples: rng.nextInt(9) === 0 ? [] : Array.from({ length: 3 + rng.nextInt(3) }, (_, i) => ({ verdict: VERDICTS[rng.nextInt(rng.nextInt(4) === 0 ? 3 : 2)]!, promptTokens: i === 0 ? 50 + rng.nextInt(50) : 0, completionTokens: 1 + rng.nextInt(30) })),
      })),
    }));
    solutions.push({ id: "never-judged-1", label: -1, subset: "math", chunks: [{ samples: [] }] });
    for (const options of [
      { draws: 7, seed: 1, tiePolicy: "Negative", stopAtFirstNegative: true, unparseableChunk: "invalid" },
      { draws: 5, seed: "s", tiePolicy: "Positive", stopAtFirstNegative: false, unparseableChunk: "Positive" },
    ] as const) {
      const expected = wholeReplay(solutions, options);
      expect(verifierScaling(solutions, options)).toEqual(expected);
      for (const pageSize of [1, 13, 1000]) {
        const replay = verifierScalingReplay({ ...options, maxK: expected.maxK });
        for (let start = 0; start < solutions.length; start += pageSize) replay.add(solutions.slice(start, start + pageSize));
        expect(replay.finish()).toEqual(expected);
      }
    }
  });
});
