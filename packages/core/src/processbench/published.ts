import type { JudgeProtocolId } from "../judge/protocols/registry";
import type { ProcessBenchSubset } from "./average";

/**
 * ProcessBench F1s published elsewhere, not measured by the studio, each row
 * with the table it is read from. Every figure is copied as the source prints
 * it (percent, one decimal): the F1 per subset where the source gives it, and
 * the source's own average over the four subsets, which is not recomputed here
 * (a source's average may differ from the mean of its rounded subset figures;
 * `note` says so where it differs by more than rounding).
 */

/** The tables the figures come from. */
export const PUBLISHED_PROCESSBENCH_SOURCES = Object.freeze({
  stepwiser: "StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5",
  genprm: "GenPRM paper (Zhao et al., arXiv 2504.00891), Table 1",
} as const);
export type PublishedProcessBenchSource = (typeof PUBLISHED_PROCESSBENCH_SOURCES)[keyof typeof PUBLISHED_PROCESSBENCH_SOURCES];

/** F1 per ProcessBench subset, in percent as published. */
export type PublishedSubsetF1 = Readonly<Record<ProcessBenchSubset, number>>;

export interface PublishedProcessBenchF1 {
  /** The model or method as the source names it. */
  model: string;
  /** F1 per subset as the source gives them; null where it gives only the average. */
  subsets: PublishedSubsetF1 | null;
  /** The source's average F1 over the four subsets, in percent: always a four-subset average. */
  averageF1: number;
  /** The same model with majority voting, where the source gives it. */
  voted?: { method: string; subsets: PublishedSubsetF1 | null; averageF1: number };
  /** The studio protocol of the same family (the way that kind of judge is asked), or null when the studio speaks none of its kind. */
  protocol: JudgeProtocolId | null;
  /** The kind of judge, in words. */
  family: string;
  /** The table the row is read from (one of `PUBLISHED_PROCESSBENCH_SOURCES`). */
  source: PublishedProcessBenchSource;
  /** What a reader of the figures should know about this row (a discrepancy in the source, a figure only averaged). */
  note?: string;
}

const STEPWISER = PUBLISHED_PROCESSBENCH_SOURCES.stepwiser;
const GENPRM = PUBLISHED_PROCESSBENCH_SOURCES.genprm;

/** GSM8K, MATH, OlympiadBench, Omni-MATH, in the sources' column order. */
const f1s = (gsm8k: number, math: number, olympiadbench: number, omnimath: number): PublishedSubsetF1 => Object.freeze({ gsm8k, math, olympiadbench, omnimath });

const DISCRIMINATIVE = "Discriminative PRM (step probability)";
const STEPWISER_FAMILY = "StepWiser generative chunk judge (RL)";
const CRITIC = "Critic model (a prompted LLM names the first wrong paragraph)";

/** The reference rows, in the order of their sources' tables. */
export const PUBLISHED_PROCESSBENCH_F1: readonly PublishedProcessBenchF1[] = Object.freeze(
  (
    [
      // StepWiser, Table 5: existing reference models.
      { model: "Math-Shepherd-PRM-7B", subsets: f1s(47.9, 29.5, 24.8, 23.8), averageF1: 31.5, protocol: "discriminative-prm", family: DISCRIMINATIVE, source: STEPWISER },
      { model: "RLHFlow-Llama3-8B-it", subsets: f1s(50.4, 33.4, 13.8, 15.8), averageF1: 28.4, protocol: "discriminative-prm", family: DISCRIMINATIVE, source: STEPWISER },
      { model: "Skywork-Qwen2.5-Math-7B-it", subsets: f1s(70.8, 53.6, 22.9, 21.0), averageF1: 42.1, protocol: "discriminative-prm", family: DISCRIMINATIVE, source: STEPWISER },
      {
        model: "Eurus-Qwen2.5-Math-7B-it (DPO)",
        subsets: f1s(56.6, 43.0, 27.3, 26.8),
        averageF1: 35.1,
        protocol: null,
        family: "Implicit PRM trained on outcomes (online DPO)",
        source: STEPWISER,
        note: "As printed in Table 5: the four subset F1s average 38.4, not the 35.1 printed as the average.",
      },
      { model: "RL-TANGO-Qwen2.5-7B-it", subsets: f1s(53.1, 48.2, 37.8, 36.3), averageF1: 43.9, protocol: null, family: "Generative verifier trained with RL on outcomes (its own prompt)", source: STEPWISER },
      // StepWiser, Table 5: its own judges (Generative CoT + RL) on the Qwen2.5-1.5B-chunk and Qwen2.5-7B-chunk policies.
      { model: "StepWiser Abs-Q (Qwen2.5-1.5B-chunk)", subsets: f1s(49.2, 40.5, 23.8, 31.0), averageF1: 36.1, protocol: "stepwiser-chunk", family: STEPWISER_FAMILY, source: STEPWISER },
      { model: "StepWiser Rel-Effective (Qwen2.5-1.5B-chunk)", subsets: f1s(48.2, 43.6, 22.1, 25.3), averageF1: 34.8, protocol: "stepwiser-chunk", family: STEPWISER_FAMILY, source: STEPWISER },
      { model: "StepWiser Rel-Ratio (Qwen2.5-1.5B-chunk)", subsets: f1s(46.9, 43.4, 26.3, 28.4), averageF1: 36.2, protocol: "stepwiser-chunk", family: STEPWISER_FAMILY, source: STEPWISER },
      {
        model: "StepWiser Abs-Q (Qwen2.5-7B-chunk)",
        subsets: f1s(61.9, 61.0, 48.4, 43.9),
        averageF1: 53.8,
        voted: { method: "Maj@8", subsets: f1s(65.5, 62.1, 49.7, 45.7), averageF1: 55.8 },
        protocol: "stepwiser-chunk",
        family: STEPWISER_FAMILY,
        source: STEPWISER,
      },
      {
        model: "StepWiser Rel-Effective (Qwen2.5-7B-chunk)",
        subsets: f1s(72.4, 68.3, 54.4, 52.4),
        averageF1: 61.9,
        voted: { method: "Maj@8", subsets: f1s(72.9, 72.1, 57.3, 54.0), averageF1: 64.1 },
        protocol: "stepwiser-chunk",
        family: STEPWISER_FAMILY,
        source: STEPWISER,
      },
      {
        model: "StepWiser Rel-Ratio (Qwen2.5-7B-chunk)",
        subsets: f1s(72.6, 67.2, 52.3, 49.8),
        averageF1: 60.5,
        voted: { method: "Maj@8", subsets: f1s(74.3, 69.0, 53.8, 50.2), averageF1: 61.8 },
        protocol: "stepwiser-chunk",
        family: STEPWISER_FAMILY,
        source: STEPWISER,
      },
      // GenPRM, Table 1: critic models, PRMs and GenPRM (Pass@1; Maj@8 as the voted figure).
      { model: "o1-mini", subsets: f1s(93.2, 88.9, 87.2, 82.4), averageF1: 87.9, protocol: "processbench-critic", family: CRITIC, source: GENPRM },
      {
        model: "QwQ-32B-Preview",
        subsets: null,
        averageF1: 71.5,
        protocol: "processbench-critic",
        family: CRITIC,
        source: GENPRM,
        note: "Average only: the text of Table 1 read for these figures (arXiv v2) has no QwQ-32B-Preview row, so no per-subset figure is given.",
      },
      { model: "GPT-4o-0806", subsets: f1s(79.2, 63.6, 51.4, 53.5), averageF1: 61.9, protocol: "processbench-critic", family: CRITIC, source: GENPRM },
      { model: "Qwen2.5-Math-PRM-7B", subsets: f1s(82.4, 77.6, 67.5, 66.3), averageF1: 73.5, protocol: "discriminative-prm", family: DISCRIMINATIVE, source: GENPRM },
      { model: "Qwen2.5-Math-PRM-72B", subsets: f1s(87.3, 80.6, 74.3, 71.1), averageF1: 78.3, protocol: "discriminative-prm", family: DISCRIMINATIVE, source: GENPRM },
      {
        model: "GenPRM-1.5B",
        subsets: f1s(52.8, 66.6, 55.1, 54.5),
        averageF1: 57.3,
        voted: { method: "Maj@8", subsets: f1s(51.3, 74.4, 65.3, 62.5), averageF1: 63.4 },
        protocol: "genprm",
        family: "Generative PRM (analysis and verification per step)",
        source: GENPRM,
      },
      {
        model: "GenPRM-7B",
        subsets: f1s(78.7, 80.3, 72.2, 69.8),
        averageF1: 75.2,
        voted: { method: "Maj@8", subsets: f1s(81.0, 85.7, 78.4, 76.8), averageF1: 80.5 },
        protocol: "genprm",
        family: "Generative PRM (analysis and verification per step)",
        source: GENPRM,
      },
      {
        model: "GenPRM-32B",
        subsets: f1s(83.1, 81.7, 72.8, 72.8),
        averageF1: 77.6,
        voted: { method: "Maj@8", subsets: f1s(85.1, 86.3, 78.9, 80.1), averageF1: 82.6 },
        protocol: "genprm",
        family: "Generative PRM (analysis and verification per step)",
        source: GENPRM,
      },
    ] satisfies PublishedProcessBenchF1[]
  ).map((entry) => Object.freeze(entry)),
);
