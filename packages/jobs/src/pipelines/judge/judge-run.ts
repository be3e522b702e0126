import { DEFAULT_PRM_THRESHOLD_VALUE, JUDGE_PROTOCOL_IDS, PRM_VARIANT_IDS } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { z } from "zod";
import { sandboxLimitsSchema } from "../../sandbox/limits";
import { endpointSnapshotSchema, snapshotEndpoint } from "../../inference/endpoint-clients";
import { JUDGE_VOTING_TEMPERATURE, refuseIdenticalSamples } from "../../runs/identical-samples";
import { planSegmentationIds } from "../../runs/paging";
import type { RunContext } from "../../runs/run-kind";

/** How judge, benchmark and best-of-N runs sample their judge: one set of fields and defaults for the three. */
export const judgeSamplingFields = {
  /** The judge endpoint's name; the run snapshots its model and URLs into `judge`. */
  judgeEndpoint: z.string().min(1),
  judge: endpointSnapshotSchema.optional(),
  /** K judgments per chunk (paper: Maj@8), every rationale kept. */
  samples: z.number().int().min(1).max(64).default(1),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().min(1).max(65_536).default(2048),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
};

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
};

/** A new submission's check on the judge's samples: K > 1 at temperature 0 would be K copies of one verdict. */
export function refuseIdenticalJudgeSamples(config: { samples: number; temperature: number }, ctx: z.RefinementCtx): void {
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
  concurrency: (config: { concurrency: number }) => config.concurrency,
};
