import { predictFirstError, type UnparseableChunkPolicy } from "../judge/solution";
import type { Verdict } from "../judge/verdict";
import { majorityVerdict, type TiePolicy } from "../judge/voting";
import { scoreProcessBench, type ProcessBenchGold } from "../processbench/metrics";
import { createRng, sampleWithoutReplacement, type Seed } from "../stats/random";

/**
 * Maj@K scaling of one judge run from the samples it already stored: how the
 * ProcessBench F1 and the judge tokens per solution would change with fewer
 * samples per chunk. No model is asked anything; a K-subset of a chunk's
 * stored samples stands for a run that drew K.
 *
 * Two things a replay cannot know, and how they are read:
 * - A run that stopped at its first Negative majority stored nothing for the
 *   chunks after it. When a smaller K no longer votes Negative there, the
 *   replay reaches chunks that were never judged; they count as Positive (so
 *   the prediction may be -1 where a real Maj@K run could have found a later
 *   error) and cost no tokens (so the curve under-counts a little at small K).
 * - Tokens: a chunk's K samples come from one request with n = K, which pays
 *   the prompt once. The stored rows carry the prompt tokens on the request's
 *   first sample and an equal share of the completion tokens on each, so a
 *   replayed chunk costs its largest stored prompt count once plus the
 *   completion tokens of the K samples drawn.
 */

export interface StoredJudgeSample {
  verdict: Verdict;
  promptTokens: number;
  completionTokens: number;
}

export interface ScalingSolution extends ProcessBenchGold {
  /** Every chunk of the solution in order, each with the samples the run stored for it (empty when never judged). */
  chunks: ReadonlyArray<{ samples: readonly StoredJudgeSample[] }>;
}

export interface VerifierScalingOptions {
  /** Random K-subsets per K (the curve is their mean). */
  draws: number;
  seed: Seed;
  tiePolicy: TiePolicy;
  /** Whether the run judged on after a solution's first Negative majority. */
  stopAtFirstNegative: boolean;
  /** How an all-unparseable vote reads, as the run read it (benchmark: "invalid"; judge runs: "Positive"). */
  unparseableChunk: UnparseableChunkPolicy;
}

export interface VerifierScalingPoint {
  k: number;
  /** Unweighted mean of the subset F1s, averaged over draws. */
  f1: number;
  /** Lowest and highest average F1 among the draws. */
  f1Range: { min: number; max: number };
  f1BySubset: Record<string, number>;
  /** Judge tokens (prompt + completion) per gold solution, averaged over draws. */
  tokensPerSolution: number;
}

export interface VerifierScaling {
  /** The fewest samples stored on any judged chunk: the largest K a replay can draw. */
  maxK: number;
  solutions: number;
  points: VerifierScalingPoint[];
}

/** 1, 2, 4, … up to `maxK`, and `maxK` itself when it is not a power of two. */
export function scalingKs(maxK: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= maxK; k *= 2) ks.push(k);
  if (maxK >= 1 && ks[ks.length - 1] !== maxK) ks.push(maxK);
  return ks;
}

export function verifierScaling(solutions: readonly ScalingSolution[], options: VerifierScalingOptions): VerifierScaling {
  if (!Number.isInteger(options.draws) || options.draws < 1) throw new RangeError(`draws must be a positive integer, got ${options.draws}`);
  let maxK = Infinity;
  for (const solution of solutions) for (const chunk of solution.chunks) if (chunk.samples.length > 0) maxK = Math.min(maxK, chunk.samples.length);
  if (maxK === Infinity) return { maxK: 0, solutions: solutions.length, points: [] };

  const gold: ProcessBenchGold[] = solutions.map(({ id, label, subset }) => ({ id, label, ...(subset === undefined ? {} : { subset }) }));
  const promptTokens = solutions.map((s) => s.chunks.map((c) => c.samples.reduce((most, x) => Math.max(most, x.promptTokens), 0)));
  const judged = solutions.map((s) => s.chunks.some((c) => c.samples.length > 0));

  const points = scalingKs(maxK).map((k): VerifierScalingPoint => {
    const averages: number[] = [];
    const bySubset = new Map<string, number>();
    let tokens = 0;
    for (let draw = 0; draw < options.draws; draw++) {
      // One stream per (K, draw): a point does not depend on which other Ks were asked for.
      const rng = createRng(`verifier-scaling:${options.seed}:${k}:${draw}`);
      const predictions = new Map<string, number | null>();
      solutions.forEach((solution, s) => {
        if (!judged[s]) return; // never judged: no prediction, scored as wrong
        const votes: Verdict[] = [];
        for (let c = 0; c < solution.chunks.length; c++) {
          const stored = solution.chunks[c]!.samples;
          if (stored.length === 0) {
            votes.push("Positive"); // not judged by the run: see the note above
            continue;
          }
          const drawn = sampleWithoutReplacement(stored, k, rng);
          tokens += promptTokens[s]![c]! + drawn.reduce((sum, x) => sum + x.completionTokens, 0);
          const vote = majorityVerdict(drawn.map((x) => x.verdict), options.tiePolicy).verdict;
          votes.push(vote);
          if (vote === "Negative" && options.stopAtFirstNegative) break;
        }
        predictions.set(solution.id, predictFirstError(votes, options.unparseableChunk));
      });
      const score = scoreProcessBench(gold, predictions);
      averages.push(score.average_f1);
      for (const [subset, value] of Object.entries(score.subsets)) bySubset.set(subset, (bySubset.get(subset) ?? 0) + value.f1);
    }
    return {
      k,
      f1: averages.reduce((sum, x) => sum + x, 0) / averages.length,
      f1Range: { min: Math.min(...averages), max: Math.max(...averages) },
      f1BySubset: Object.fromEntries([...bySubset].map(([subset, sum]) => [subset, sum / options.draws])),
      tokensPerSolution: solutions.length ? tokens / options.draws / solutions.length : 0,
    };
  });
  return { maxK, solutions: solutions.length, points };
}
