import type { UnparseableChunkPolicy } from "../judge/solution";
import type { Verdict } from "../judge/verdict";
import type { TiePolicy } from "../judge/voting";
import { f1FromAccuracies, type ProcessBenchGold } from "../processbench/metrics";
import { subsetFromId } from "../processbench/record";
import { createRng, type Seed } from "../stats/random";

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

/** The fewest samples stored on any judged chunk (Infinity when none was judged). */
function fewestSamples(solutions: readonly ScalingSolution[]): number {
  let maxK = Infinity;
  for (const solution of solutions) for (const chunk of solution.chunks) if (chunk.samples.length > 0) maxK = Math.min(maxK, chunk.samples.length);
  return maxK;
}

export function verifierScaling(solutions: readonly ScalingSolution[], options: VerifierScalingOptions): VerifierScaling {
  const maxK = fewestSamples(solutions);
  const replay = verifierScalingReplay({ ...options, maxK: maxK === Infinity ? 0 : maxK });
  replay.add(solutions);
  return replay.finish();
}

export interface VerifierScalingReplay {
  /** The next solutions in order (each once); their chunks' samples may be dropped afterwards. */
  add(solutions: readonly ScalingSolution[]): void;
  finish(): VerifierScaling;
}

interface ReplayTally {
  nError: number;
  nCorrect: number;
  hitsError: number;
  hitsCorrect: number;
}

/**
 * `verifierScaling` fed a page of solutions at a time, so a whole dataset's
 * samples never sit in memory at once: each (K, draw) keeps its own generator
 * and its ProcessBench tallies per subset across pages, which is all
 * `scoreProcessBench` reads of its predictions. The caller gives `maxK`, the
 * fewest samples stored on any judged chunk of all the solutions it will add
 * (0 when none was judged). Adding the same solutions in the same order in one
 * page or many gives the same curve as `verifierScaling`.
 */
export function verifierScalingReplay(options: VerifierScalingOptions & { maxK: number }): VerifierScalingReplay {
  if (!Number.isInteger(options.draws) || options.draws < 1) throw new RangeError(`draws must be a positive integer, got ${options.draws}`);
  if (!Number.isInteger(options.maxK) || options.maxK < 0) throw new RangeError(`maxK must be a non-negative integer, got ${options.maxK}`);
  const ks = options.maxK > 0 ? scalingKs(options.maxK) : [];
  // One stream per (K, draw): a point does not depend on which other Ks were asked for.
  const rngs = ks.map((k) => Array.from({ length: options.draws }, (_, draw) => createRng(`verifier-scaling:${options.seed}:${k}:${draw}`)));
  const tallies = ks.map(() => Array.from({ length: options.draws }, () => new Map<string, ReplayTally>()));
  const tokens = ks.map(() => 0);
  const seen = new Set<string>();
  let count = 0;
  let pool = new Int32Array(16);

  const add = (solutions: readonly ScalingSolution[]) => {
    for (const solution of solutions) {
      if (seen.has(solution.id)) throw new Error(`gold id ${solution.id} appears twice`);
      seen.add(solution.id);
      count += 1;
      const subset = solution.subset ?? subsetFromId(solution.id);
      const judged = solution.chunks.some((c) => c.samples.length > 0);
      const promptTokens = solution.chunks.map((c) => c.samples.reduce((most, x) => Math.max(most, x.promptTokens), 0));
      ks.forEach((k, kIndex) => {
        for (let draw = 0; draw < options.draws; draw++) {
          const bySubset = tallies[kIndex]![draw]!;
          const tally = bySubset.get(subset) ?? { nError: 0, nCorrect: 0, hitsError: 0, hitsCorrect: 0 };
          bySubset.set(subset, tally);
          let prediction: number | null | undefined; // undefined: never judged, no prediction (scored as wrong)
          if (judged) {
            const rng = rngs[kIndex]![draw]!;
            prediction = -1;
            let decided = false;
            for (let c = 0; c < solution.chunks.length; c++) {
              const stored = solution.chunks[c]!.samples;
              if (stored.length === 0) continue; // not judged by the run: reads as Positive, see the note above
              // `sampleWithoutReplacement(stored, k, rng)` on positions: the same draws and the same K samples, nothing copied.
              const m = stored.length;
              if (pool.length < m) pool = new Int32Array(m * 2);
              for (let i = 0; i < m; i++) pool[i] = i;
              let positive = 0;
              let negative = 0;
              let completion = 0;
              for (let i = 0; i < k; i++) {
                const j = i + rng.nextInt(m - i);
                const picked = pool[j]!;
                pool[j] = pool[i]!;
                pool[i] = picked;
                const x = stored[picked]!;
                if (x.verdict === "Positive") positive += 1;
                else if (x.verdict === "Negative") negative += 1;
                completion += x.completionTokens;
              }
              tokens[kIndex]! += promptTokens[c]! + completion;
              // `majorityVerdict`, then `predictFirstError`'s reading of it: the first Negative, or an unparseable vote the policy calls invalid.
              const vote: Verdict = positive === 0 && negative === 0 ? "unparseable" : positive === negative ? options.tiePolicy : positive > negative ? "Positive" : "Negative";
              const read = vote === "unparseable" ? options.unparseableChunk : vote;
              if (!decided && (read === "Negative" || read === "invalid")) {
                prediction = read === "Negative" ? c : null;
                decided = true;
              }
              if (vote === "Negative" && options.stopAtFirstNegative) break;
            }
          }
          const hit = prediction !== undefined && prediction !== null && prediction === solution.label;
          if (solution.label === -1) {
            tally.nCorrect += 1;
            if (hit) tally.hitsCorrect += 1;
          } else {
            tally.nError += 1;
            if (hit) tally.hitsError += 1;
          }
        }
      });
    }
  };

  const finish = (): VerifierScaling => {
    const points = ks.map((k, kIndex): VerifierScalingPoint => {
      const averages: number[] = [];
      const bySubset = new Map<string, number>();
      for (let draw = 0; draw < options.draws; draw++) {
        // `scoreProcessBench`'s arithmetic: subsets in name order, the average of their F1s summed in that order.
        const f1s: Array<[string, number]> = [...tallies[kIndex]![draw]!]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([subset, t]) => {
            const accErr = t.nError ? t.hitsError / t.nError : 0;
            const accCor = t.nCorrect ? t.hitsCorrect / t.nCorrect : 0;
            return [subset, f1FromAccuracies(accErr, accCor)];
          });
        averages.push(f1s.length ? f1s.reduce((sum, [, f]) => sum + f, 0) / f1s.length : 0);
        for (const [subset, value] of f1s) bySubset.set(subset, (bySubset.get(subset) ?? 0) + value);
      }
      return {
        k,
        f1: averages.reduce((sum, x) => sum + x, 0) / averages.length,
        f1Range: { min: Math.min(...averages), max: Math.max(...averages) },
        f1BySubset: Object.fromEntries([...bySubset].map(([subset, sum]) => [subset, sum / options.draws])),
        tokensPerSolution: count ? tokens[kIndex]! / options.draws / count : 0,
      };
    });
    return { maxK: options.maxK, solutions: count, points };
  };
  return { add, finish };
}
