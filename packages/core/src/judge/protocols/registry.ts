/**
 * Judge protocols: how a judge model is asked and how its answer is read. A protocol
 * is a named, versioned unit (request builder and parser here in core, request shape
 * in jobs); a run records the id and version it used, so a stored run keeps meaning
 * what it meant when a protocol gains a version.
 */
export const JUDGE_PROTOCOL_IDS = [
  "stepwiser-chunk",
  "processbench-critic",
  "thinkprm",
  "genprm",
  "discriminative-prm",
  "outcome-pointwise",
  "outcome-pairwise",
] as const;
export type JudgeProtocolId = (typeof JUDGE_PROTOCOL_IDS)[number];

/** What one request of the protocol judges. */
export type JudgeGranularity =
  /** One request per chunk, given the problem and the chunks before it. */
  | "chunk"
  /** One request per solution, read back as a verdict per step. */
  | "solution-steps"
  /** One request per solution, read back as one score (no step verdicts). */
  | "solution"
  /** One request per pair of solutions, read back as the better one. */
  | "pair";

/** The server API the protocol needs from an endpoint. */
export type JudgeServerApi =
  /** Chat completions. */
  | "chat"
  /** Chat completions with `logprobs`/`top_logprobs` on the decision token. */
  | "chat-logprobs"
  /** vLLM's pooling API (`POST /pooling`) on a reward model (`--runner pooling`). */
  | "pooling";

export interface JudgeProtocolInfo {
  id: JudgeProtocolId;
  version: number;
  label: string;
  granularity: JudgeGranularity;
  api: JudgeServerApi;
  /** Gives a verdict per step, so a first-error prediction (ProcessBench) and chunk-reset can use it. */
  stepwise: boolean;
  /** Where the protocol's request and answer formats come from. */
  source: string;
}

export const JUDGE_PROTOCOLS: Readonly<Record<JudgeProtocolId, JudgeProtocolInfo>> = Object.freeze({
  "stepwiser-chunk": {
    id: "stepwiser-chunk",
    version: 1,
    label: "StepWiser chunk judge",
    granularity: "chunk",
    api: "chat",
    stepwise: true,
    source: "StepWiser (Meta FAIR, 2025), the judge prompt of spec §3",
  },
  "processbench-critic": {
    id: "processbench-critic",
    // v2: K samples per solution voted as run_eval.py votes (v1 read one sample whatever K was).
    version: 2,
    label: "ProcessBench critic",
    granularity: "solution-steps",
    api: "chat",
    stepwise: true,
    source: "QwenLM/ProcessBench code/templates/critique_template.txt and code/run_eval.py",
  },
  thinkprm: {
    id: "thinkprm",
    // v2: the verification prefix starts with helper.py's newline ("\nLet's verify step by step:").
    version: 2,
    label: "ThinkPRM",
    granularity: "solution-steps",
    api: "chat-logprobs",
    stepwise: true,
    source: "mukhal/ThinkPRM prm/thinkprm_api.py and utils/helper.py (commit 0beccfb)",
  },
  genprm: {
    id: "genprm",
    // v2: a step is read as aggregation/processbench.py reads it (mean P(Yes) below 0.5, 0.5 without a decision).
    version: 2,
    label: "GenPRM",
    granularity: "chunk",
    api: "chat-logprobs",
    stepwise: true,
    source: "RyanLiu112/GenPRM src/prm_evaluation/genprm_inference.py and prm_evaluate.py (commit cc80f47)",
  },
  "discriminative-prm": {
    id: "discriminative-prm",
    version: 1,
    label: "Discriminative PRM",
    granularity: "solution-steps",
    api: "pooling",
    stepwise: true,
    source: "Qwen2.5-Math-PRM's model card (<extra_0> step separator) and vLLM's pooling API; Math-Shepherd's step tag",
  },
  "outcome-pointwise": {
    id: "outcome-pointwise",
    version: 1,
    label: "Outcome reward model (pointwise)",
    granularity: "solution",
    api: "chat",
    stepwise: false,
    source: "a whole-solution score from 1 to 10 in \\boxed{}, the pointwise scale of generative reward models such as DeepSeek-GRM; the wording is ours",
  },
  "outcome-pairwise": {
    id: "outcome-pairwise",
    version: 1,
    label: "Outcome reward model (pairwise knockout)",
    granularity: "pair",
    api: "chat",
    stepwise: false,
    source: "Reward Reasoning Models (Guo et al., 2025): the pairwise template with \\boxed{Assistant 1}/\\boxed{Assistant 2} and a knockout tournament for best-of-N",
  },
});

export function isJudgeProtocolId(id: string): id is JudgeProtocolId {
  return (JUDGE_PROTOCOL_IDS as readonly string[]).includes(id);
}

/** `id@v<version>`, the form a run and its samples record. */
export function judgeProtocolRef(id: JudgeProtocolId): string {
  return `${id}@v${JUDGE_PROTOCOLS[id].version}`;
}

/** The protocols an endpoint speaks when it declares none: the chat prompts every chat model can be given. */
export const DEFAULT_ENDPOINT_PROTOCOLS: readonly JudgeProtocolId[] = Object.freeze(["stepwiser-chunk", "processbench-critic"]);

export const STEPWISE_PROTOCOL_IDS = Object.freeze(JUDGE_PROTOCOL_IDS.filter((id) => JUDGE_PROTOCOLS[id].stepwise));

/** The discriminative PRM layouts: how steps are joined for the pooling request and which class is positive. */
export const PRM_VARIANT_IDS = ["qwen2.5-math-prm", "math-shepherd"] as const;
export type PrmVariantId = (typeof PRM_VARIANT_IDS)[number];

/** A discriminative PRM's step is Positive when its probability is at least this (Qwen2.5-Math-PRM's 0.5). */
export const DEFAULT_PRM_THRESHOLD_VALUE = 0.5;

/** The run kinds that ask a judge. */
export const JUDGE_RUN_KINDS = ["judge", "benchmark", "best_of_n", "chunk_reset"] as const;
export type JudgeRunKind = (typeof JUDGE_RUN_KINDS)[number];

/**
 * Which protocols each run kind can use, the one definition the server's check and
 * the launch form share. A first-error prediction (benchmark) needs a stepwise
 * protocol; a judge run stores a verdict for every chunk and chunk-reset needs one
 * on the newest chunk, which the ProcessBench critic (one index per solution) does
 * not give; best-of-N takes every protocol that scores whole solutions.
 */
export function protocolsForRunKind(kind: JudgeRunKind): JudgeProtocolId[] {
  const stepwise = JUDGE_PROTOCOL_IDS.filter((id) => JUDGE_PROTOCOLS[id].stepwise);
  if (kind === "benchmark") return stepwise;
  if (kind === "best_of_n") return JUDGE_PROTOCOL_IDS.filter((id) => id !== "processbench-critic");
  return stepwise.filter((id) => id !== "processbench-critic");
}
