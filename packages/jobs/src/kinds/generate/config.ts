import { DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID, SELF_SEGMENTING_POLICY_PROMPT_IDS } from "@stepwiser/core";
import { z } from "zod";
import { endpointSnapshotSchema } from "../../inference/endpoint-clients";
import { refuseIdenticalSamples } from "../../kit/identical-samples";
import { withLegacyPolicyPrompt } from "../../kit/legacy-prompts";

const generateConfigFields = z
  .object({
    /** Dataset whose problems are solved; only problems with a reference answer are planned. */
    datasetId: z.string().min(1),
    /** Only these problems of the dataset (default: all of them). */
    problemIds: z.array(z.string().min(1)).min(1).optional(),
    limit: z.number().int().min(1).optional(),
    /** The policy endpoint's name; the run snapshots its model and URLs into `policy`. */
    policyEndpoint: z.string().min(1),
    policy: endpointSnapshotSchema.optional(),
    /** The policy's prompt: v2 is the paper's own (Table 11), the default; v1 the studio's first wording. */
    promptTemplateId: z.enum(SELF_SEGMENTING_POLICY_PROMPT_IDS).default(DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID),
    /** N: solutions per problem, drawn by one request with n = N (paper: 16). */
    samplesPerProblem: z.number().int().min(1).max(256).default(16),
    temperature: z.number().min(0).max(2).default(1),
    /** Paper: 8192. A solution cut off by the limit has no boxed answer and counts as wrong. */
    maxTokens: z.number().int().min(1).max(65_536).default(8192),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
    /**
     * The paper's prompt filter: keep a problem only if its N solutions are
     * neither all right nor all wrong. Filtered-out problems are still stored,
     * marked `filteredOut: true` (see the handler). On by default, as in the paper.
     */
    filterMixed: z.boolean().default(true),
    /** Name of the dataset the run writes; default "<input name> · generate <run id>". */
    outputDatasetName: z.string().trim().min(1).max(200).optional(),
    /** Problems solved at once (each is one request with n = N). */
    concurrency: z.number().int().min(1).max(4096).default(32),
  });

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read); runs stored without a prompt used v1. */
export const generateStoredConfigSchema = z.preprocess(withLegacyPolicyPrompt, generateConfigFields);

export const generateConfigSchema = generateConfigFields.superRefine((config, ctx) => {
    if (config.filterMixed && config.samplesPerProblem < 2) {
      ctx.addIssue({ code: "custom", path: ["samplesPerProblem"], message: "filterMixed (on by default) needs at least 2 samples per problem: one solution is always all right or all wrong; set filterMixed false for a single sample" });
    }
    refuseIdenticalSamples(ctx, { samplesField: "samplesPerProblem", samples: config.samplesPerProblem, temperatureField: "temperature", temperature: config.temperature, usual: "the paper samples at 1.0" });
  });

export type GenerateConfig = z.output<typeof generateConfigSchema>;
export type GenerateConfigInput = z.input<typeof generateConfigSchema>;
