import type { JudgeProtocolId } from "./registry";

/**
 * How a protocol samples its judge when a run names no value: each protocol's
 * defaults come from its own source, with the line they are read from. A value
 * the run gives always overrides its default.
 */
export interface JudgeSamplingDefaults {
  temperature: number;
  /** Sent only where the source sends it; absent means the request carries no top_p (the server's 1). */
  topP?: number;
  maxTokens: number;
  /** Where each value comes from, for docs, the launch form and `--dry-run` readers. */
  source: string;
}

/** StepWiser's RL setup: "the model can generate up to 3096 new tokens" (paper §4.1, judge RL training details). */
export const STEPWISER_JUDGE_MAX_TOKENS = 3096;
/** ProcessBench `code/run_eval.py`: `max_tokens=8192` (32768 for QwQ, which a run sets itself). */
export const PROCESSBENCH_CRITIC_MAX_TOKENS = 8192;
/** ProcessBench `code/run_eval.py` with `--use_voting`: `temperature=1, top_p=0.9, n=voting_n` (default 8). */
export const PROCESSBENCH_VOTING_SAMPLING = Object.freeze({ temperature: 1, topP: 0.9, samples: 8 } as const);
/**
 * ThinkPRM: `search-and-learn/src/sal/config.py` `max_verification_length: int = 8192`, of which
 * `prm/thinkprm_api.py` generates `max_tokens=self.max_length - 20`; `prm_temperature: float = 0.0`
 * for one chain, and `APIThinkPRMVerifier`'s own `temperature: float = 0.7` for several.
 */
export const THINKPRM_SAMPLING = Object.freeze({ maxTokens: 8192 - 20, temperature: 0, votingTemperature: 0.7 } as const);
/** GenPRM `src/prm_evaluation/genprm_inference.py` (commit cc80f47): temperature 0.6, top_p 0.95, top_k 20, max_tokens 2048. */
export const GENPRM_SAMPLING = Object.freeze({ temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 2048, topLogprobs: 20 } as const);
/** The studio's own defaults where no source fixes a value (the outcome models' wording is ours). */
export const STUDIO_JUDGE_MAX_TOKENS = 2048;
/** Votes need distinct samples: where no source gives a voting temperature, K > 1 samples at 1 (ProcessBench's voting temperature). */
export const DEFAULT_VOTING_TEMPERATURE = 1;

/** A protocol's sampling defaults for K samples per judged unit. */
export function judgeSamplingDefaults(protocol: JudgeProtocolId, samples: number): JudgeSamplingDefaults {
  const voting = samples > 1;
  switch (protocol) {
    case "stepwiser-chunk":
      return {
        temperature: voting ? DEFAULT_VOTING_TEMPERATURE : 0,
        maxTokens: STEPWISER_JUDGE_MAX_TOKENS,
        source: `maxTokens ${STEPWISER_JUDGE_MAX_TOKENS}: StepWiser §4.1 (the judge generates up to 3096 new tokens in RL); temperature ${voting ? `${DEFAULT_VOTING_TEMPERATURE} for Maj@K (the paper gives none; ProcessBench's voting temperature)` : "0 (one greedy verdict)"}; no top_p`,
      };
    case "processbench-critic":
      return voting
        ? {
            temperature: PROCESSBENCH_VOTING_SAMPLING.temperature,
            topP: PROCESSBENCH_VOTING_SAMPLING.topP,
            maxTokens: PROCESSBENCH_CRITIC_MAX_TOKENS,
            source: "ProcessBench code/run_eval.py --use_voting: temperature 1, top_p 0.9, max_tokens 8192",
          }
        : { temperature: 0, maxTokens: PROCESSBENCH_CRITIC_MAX_TOKENS, source: "ProcessBench code/run_eval.py: temperature 0, max_tokens 8192" };
    case "thinkprm":
      return {
        temperature: voting ? THINKPRM_SAMPLING.votingTemperature : THINKPRM_SAMPLING.temperature,
        maxTokens: THINKPRM_SAMPLING.maxTokens,
        source: `ThinkPRM: max_tokens 8172 (sal/config.py max_verification_length 8192, less thinkprm_api.py's 20); temperature ${voting ? "0.7 (APIThinkPRMVerifier's default, for several chains)" : "0 (sal/config.py prm_temperature)"}; no top_p`,
      };
    case "genprm":
      return { temperature: GENPRM_SAMPLING.temperature, topP: GENPRM_SAMPLING.topP, maxTokens: GENPRM_SAMPLING.maxTokens, source: "GenPRM genprm_inference.py (cc80f47): temperature 0.6, top_p 0.95, top_k 20, max_tokens 2048" };
    case "discriminative-prm":
      return { temperature: 0, maxTokens: STUDIO_JUDGE_MAX_TOKENS, source: "a pooling request sends no sampling settings; these values are not used" };
    case "outcome-pointwise":
    case "outcome-pairwise":
      return {
        temperature: voting ? DEFAULT_VOTING_TEMPERATURE : 0,
        maxTokens: STUDIO_JUDGE_MAX_TOKENS,
        source: `the studio's defaults (the prompt wording is ours): maxTokens ${STUDIO_JUDGE_MAX_TOKENS}, temperature ${voting ? DEFAULT_VOTING_TEMPERATURE : 0}; no top_p`,
      };
  }
}

/** The sampling a run resolves: given values over the protocol's defaults. `topP` stays absent where neither names one. */
export function resolveJudgeSampling(
  protocol: JudgeProtocolId,
  given: { samples: number; temperature?: number; topP?: number; maxTokens?: number },
): { temperature: number; topP?: number; maxTokens: number } {
  const defaults = judgeSamplingDefaults(protocol, given.samples);
  const topP = given.topP ?? defaults.topP;
  return { temperature: given.temperature ?? defaults.temperature, ...(topP === undefined ? {} : { topP }), maxTokens: given.maxTokens ?? defaults.maxTokens };
}
