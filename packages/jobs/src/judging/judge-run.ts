import {
  DEFAULT_PRM_THRESHOLD_VALUE,
  DEFAULT_STEPWISER_JUDGE_PROMPT_ID,
  GENPRM_SAMPLING,
  JUDGE_PROTOCOL_IDS,
  LEGACY_STEPWISER_JUDGE_PROMPT_ID,
  PRM_VARIANT_IDS,
  resolveJudgeSampling,
  STEPWISER_JUDGE_PROMPT_IDS,
  type JudgeProtocolId,
  type StepwiserJudgePromptId,
} from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { z } from "zod";
import { sandboxLimitsSchema } from "../sandbox/limits";
import { endpointSnapshotSchema, snapshotEndpoint } from "../inference/endpoint-clients";
import { JUDGE_VOTING_TEMPERATURE, refuseIdenticalSamples } from "../kit/identical-samples";
import { planSegmentationIds, refuseEmptySegmentationSelection } from "../kit/paging";
import type { RunContext } from "../runs/run-kind";

/** How judge, benchmark and best-of-N runs sample their judge: one set of fields and defaults for the three. */
export const judgeSamplingFields = {
  /** The judge endpoint's name; the run snapshots its model and URLs into `judge`. */
  judgeEndpoint: z.string().min(1),
  judge: endpointSnapshotSchema.optional(),
  /** K judgments per judged unit (paper: Maj@8), every rationale kept. */
  samples: z.number().int().min(1).max(64).default(1),
  /** Unset: the protocol's own default (core's judgeSamplingDefaults), filled in when the run is submitted. */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling; unset: the protocol's default where its source sends one (ProcessBench voting 0.9, GenPRM 0.95), else not sent. */
  topP: z.number().gt(0).max(1).optional(),
  /** Unset: the protocol's default (processbench-critic 8192, stepwiser-chunk 3096, thinkprm 8172, genprm 2048). */
  maxTokens: z.number().int().min(1).max(65_536).optional(),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
};

type SamplingGiven = { protocol: JudgeProtocolId; samples: number; temperature?: number; topP?: number; maxTokens?: number; judgePromptTemplateId?: StepwiserJudgePromptId };
export type WithJudgeSampling<C> = Omit<C, "temperature" | "topP" | "maxTokens"> & { temperature: number; topP?: number; maxTokens: number };

/** A new submission's sampling and prompt: every value the config does not give is its protocol's default, written into the stored config. */
export function withJudgeSamplingDefaults<C extends SamplingGiven>(config: C): WithJudgeSampling<C> {
  return { ...config, ...resolveJudgeSampling(config.protocol, config), judgePromptTemplateId: resolveJudgePromptTemplateId(config, false) };
}

/**
 * A stored config's sampling. Runs store every resolved value, so only runs stored before
 * `topP` existed lack one: GenPRM always sent its 0.95, every other protocol sent none.
 */
export function withStoredJudgeSampling<C extends SamplingGiven>(config: C): WithJudgeSampling<C> {
  const topP = config.topP ?? (config.protocol === "genprm" ? GENPRM_SAMPLING.topP : undefined);
  const resolved = resolveJudgeSampling(config.protocol, { ...config, topP });
  if (config.topP === undefined && topP === undefined) delete resolved.topP;
  return { ...config, ...resolved, judgePromptTemplateId: resolveJudgePromptTemplateId(config, true) };
}

/** The protocol-specific settings of a judge; each protocol reads the ones it has and ignores the rest. */
export const protocolOptionsSchema = z.object({
  /** discriminative-prm: a step is Positive when its probability is at least this. */
  threshold: z.number().min(0).max(1).default(DEFAULT_PRM_THRESHOLD_VALUE),
  /** discriminative-prm: how the steps are joined and which class is positive. */
  prmVariant: z.enum(PRM_VARIANT_IDS).default(PRM_VARIANT_IDS[0]),
  /** genprm: run the rationale's python blocks in the sandbox (off: the model's own "[Code Output]" is kept, as GenPRM without execution). */
  executeCode: z.boolean().default(false),
  sandbox: sandboxLimitsSchema.prefault({}),
});
export type ProtocolOptions = z.output<typeof protocolOptionsSchema>;

/** Which judge protocol a run speaks (core's registry) and its settings: one pair of fields for every run kind with a judge. */
export const judgeProtocolFields = {
  protocol: z.enum(JUDGE_PROTOCOL_IDS).default("stepwiser-chunk"),
  protocolOptions: protocolOptionsSchema.prefault({}),
  /**
   * stepwiser-chunk's prompt: v2 is the paper's own (Table 3), the default of new runs; v1 the
   * studio's first wording, which runs stored before this field were judged with.
   */
  judgePromptTemplateId: z.enum(STEPWISER_JUDGE_PROMPT_IDS).optional(),
};

/** The judge prompt a config resolves: only stepwiser-chunk has one; runs stored without the field used v1. */
export function resolveJudgePromptTemplateId(config: { protocol: JudgeProtocolId; judgePromptTemplateId?: StepwiserJudgePromptId }, stored: boolean): StepwiserJudgePromptId | undefined {
  if (config.protocol !== "stepwiser-chunk") return config.judgePromptTemplateId;
  return config.judgePromptTemplateId ?? (stored ? LEGACY_STEPWISER_JUDGE_PROMPT_ID : DEFAULT_STEPWISER_JUDGE_PROMPT_ID);
}

/** A new submission's checks on its judge settings (judge, benchmark and best-of-N runs). */
export function refuseBadJudgeSettings(config: { protocol: JudgeProtocolId; samples: number; temperature?: number; judgePromptTemplateId?: string }, ctx: z.RefinementCtx): void {
  refuseIdenticalJudgeSamples(config, ctx);
  refuseJudgePromptOfOtherProtocol(config, ctx);
}

/** A new submission names a judge prompt only for the protocol that uses one. */
export function refuseJudgePromptOfOtherProtocol(config: { protocol: JudgeProtocolId; judgePromptTemplateId?: string }, ctx: z.RefinementCtx): void {
  if (config.judgePromptTemplateId !== undefined && config.protocol !== "stepwiser-chunk") {
    ctx.addIssue({ code: "custom", path: ["judgePromptTemplateId"], message: `judgePromptTemplateId is the stepwiser-chunk prompt; ${config.protocol} asks with its own format` });
  }
}

/** A new submission's check on the judge's samples: K > 1 at temperature 0 would be K copies of one verdict. */
export function refuseIdenticalJudgeSamples(config: { samples: number; temperature?: number }, ctx: z.RefinementCtx): void {
  if (config.temperature === undefined) return;
  refuseIdenticalSamples(ctx, { samplesField: "samples", samples: config.samples, temperatureField: "temperature", temperature: config.temperature, usual: JUDGE_VOTING_TEMPERATURE });
}

type SegmentationJudgeConfig = Parameters<typeof planSegmentationIds>[1] & { judgeEndpoint: string; datasetId: string; concurrency: number };

/** What runs that judge every segmentation of a dataset (judge, benchmark) share: the judge's snapshot, one unit per segmentation. */
export const segmentationJudgeRun = {
  async snapshot<C extends { judgeEndpoint: string }>(db: Db, config: C): Promise<C> {
    return { ...config, judge: await snapshotEndpoint(db, config.judgeEndpoint, "judgeEndpoint") };
  },
  datasetId: (config: { datasetId: string }) => config.datasetId,
  plan: <C extends SegmentationJudgeConfig>({ db, config }: RunContext<C>) => planSegmentationIds(db, config),
  refuseEmptyPlan: (db: Db, config: SegmentationJudgeConfig) => refuseEmptySegmentationSelection(db, config),
  concurrency: (config: { concurrency: number }) => config.concurrency,
};
