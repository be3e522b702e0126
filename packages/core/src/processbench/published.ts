import type { JudgeProtocolId } from "../judge/protocols/registry";

/** Where the published figures come from. */
export const PUBLISHED_PROCESSBENCH_SOURCE = "StepWiser paper (Meta FAIR, 2025), ProcessBench average over its four subsets";

/**
 * A ProcessBench score published elsewhere, not measured by the studio: only the
 * average F1 over the four subsets (gsm8k, math, olympiadbench, omnimath) is given
 * there, so there is no acc_err, acc_cor, per-subset figure or interval to show.
 */
export interface PublishedProcessBenchF1 {
  /** The model or method as the source names it. */
  model: string;
  /** Average F1 over the four subsets, in percent as published. */
  averageF1: number;
  /** The same model with majority voting, where the source gives it. */
  voted?: { averageF1: number; method: string };
  /** The studio protocol of the same family (the way that kind of judge is asked), or null when the studio speaks none of its kind. */
  protocol: JudgeProtocolId | null;
  /** The kind of judge, in words. */
  family: string;
  source: string;
}

const source = PUBLISHED_PROCESSBENCH_SOURCE;

/** The 7B-scale reference F1s the StepWiser paper reports on ProcessBench, highest first. */
export const PUBLISHED_PROCESSBENCH_F1: readonly PublishedProcessBenchF1[] = Object.freeze(
  (
    [
      { model: "GenPRM-7B", averageF1: 75.2, protocol: "genprm", family: "Generative PRM (analysis and verification per step)", source },
      { model: "Qwen2.5-Math-PRM-7B", averageF1: 73.5, protocol: "discriminative-prm", family: "Discriminative PRM (step probability)", source },
      { model: "StepWiser Rel-Effective", averageF1: 61.9, voted: { averageF1: 64.1, method: "Maj@8" }, protocol: "stepwiser-chunk", family: "StepWiser generative chunk judge", source },
      { model: "StepWiser Rel-Ratio", averageF1: 60.5, protocol: "stepwiser-chunk", family: "StepWiser generative chunk judge", source },
      { model: "StepWiser Abs-Q", averageF1: 53.8, protocol: "stepwiser-chunk", family: "StepWiser generative chunk judge", source },
      { model: "RL-TANGO-7B", averageF1: 43.9, protocol: null, family: "Generative verifier trained with RL (its own prompt)", source },
      { model: "Skywork-PRM-7B", averageF1: 42.1, protocol: "discriminative-prm", family: "Discriminative PRM (step probability)", source },
      { model: "Math-Shepherd-PRM-7B", averageF1: 31.5, protocol: "discriminative-prm", family: "Discriminative PRM (step probability)", source },
    ] satisfies PublishedProcessBenchF1[]
  ).map((entry) => Object.freeze(entry)),
);
