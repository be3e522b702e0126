import { majorityVerdict, type Label, type TiePolicy, type Verdict } from "@stepwiser/core";
import { probabilityOfPositive, SIM_JUDGE_PRESETS, type SimJudgeConfig, type SimJudgePresetId } from "./judge";

/** A solution as the expectation needs it: its chunk count and its true first error (-1: none). */
export interface ExpectationSolution {
  chunks: number;
  trueFirstError: number;
}

/** The ProcessBench figures a simulated judge is expected to score, and what they follow from. */
export interface SimJudgeExpectation {
  judge: SimJudgePresetId;
  accuracy: number;
  positiveBias: number;
  unparseableRate: number;
  samples: number;
  /** P(the chunk's vote is Positive | truly Positive) and P(Negative | truly Negative). */
  chunkPositiveGivenPositive: number;
  chunkNegativeGivenNegative: number;
  meanChunksCorrect: number | null;
  acc_err: number | null;
  acc_cor: number | null;
  /** The harmonic mean of the two expected accuracies (not the expectation of the harmonic mean). */
  f1: number | null;
}

/**
 * The distribution of one chunk's majority vote over `samples` independent samples,
 * each Positive with probability `positive`, Negative with `negative`, else unparseable:
 * every split of the samples enumerated and voted as the run votes it.
 */
function voteDistribution(positive: number, negative: number, samples: number, tiePolicy: TiePolicy): Record<Verdict, number> {
  const unparseable = 1 - positive - negative;
  const out: Record<Verdict, number> = { Positive: 0, Negative: 0, unparseable: 0 };
  const choose = (n: number, k: number) => {
    let c = 1;
    for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
    return c;
  };
  for (let p = 0; p <= samples; p++) {
    for (let n = 0; p + n <= samples; n++) {
      const u = samples - p - n;
      const probability = choose(samples, p) * choose(samples - p, n) * positive ** p * negative ** n * unparseable ** u;
      const votes: Verdict[] = [...Array<Verdict>(p).fill("Positive"), ...Array<Verdict>(n).fill("Negative"), ...Array<Verdict>(u).fill("unparseable")];
      out[majorityVerdict(votes, tiePolicy).verdict] += probability;
    }
  }
  return out;
}

/**
 * What a StepWiser chunk benchmark of a built-in simulated judge (one with
 * independent errors only) is expected to score on these solutions, read as the
 * run reads them (stop at the first Negative; an unparseable chunk before any
 * Negative makes the prediction invalid). Each chunk's verdict is right with the
 * preset's accuracy, independently, so a correct solution of k chunks is scored
 * correct only if all k votes are Positive — P(Positive | Positive)^k — and one
 * whose first error is chunk e only if the e chunks before it are voted Positive
 * and chunk e Negative. Null for a judge with systematic errors (its expectation
 * depends on which chunks it is wrong about) or one that is not a preset.
 */
export function expectedSimJudgeScores(
  judge: string,
  solutions: readonly ExpectationSolution[],
  options: { samples: number; tiePolicy: TiePolicy },
): SimJudgeExpectation | null {
  if (!Object.hasOwn(SIM_JUDGE_PRESETS, judge)) return null;
  const id = judge as SimJudgePresetId;
  const preset = SIM_JUDGE_PRESETS[id] as Partial<SimJudgeConfig> & Pick<SimJudgeConfig, "accuracy" | "positiveBias" | "unparseableRate">;
  if (preset.blindTo?.length || preset.suspiciousOf?.length) return null;
  const parsed = 1 - preset.unparseableRate;
  const chunkVote = (truth: Label) => {
    const positive = parsed * probabilityOfPositive(preset, truth);
    return voteDistribution(positive, parsed - positive, options.samples, options.tiePolicy);
  };
  const onPositive = chunkVote("Positive");
  const onNegative = chunkVote("Negative");
  const correct = solutions.filter((s) => s.trueFirstError < 0);
  const erroneous = solutions.filter((s) => s.trueFirstError >= 0);
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
  const accCor = mean(correct.map((s) => onPositive.Positive ** s.chunks));
  const accErr = mean(erroneous.map((s) => onPositive.Positive ** s.trueFirstError * onNegative.Negative));
  return {
    judge: id,
    accuracy: preset.accuracy,
    positiveBias: preset.positiveBias,
    unparseableRate: preset.unparseableRate,
    samples: options.samples,
    chunkPositiveGivenPositive: onPositive.Positive,
    chunkNegativeGivenNegative: onNegative.Negative,
    meanChunksCorrect: mean(correct.map((s) => s.chunks)),
    acc_err: accErr,
    acc_cor: accCor,
    f1: accErr !== null && accCor !== null ? (accErr + accCor > 0 ? (2 * accErr * accCor) / (accErr + accCor) : 0) : null,
  };
}
