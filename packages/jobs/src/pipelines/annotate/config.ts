import { DEFAULT_LABEL_RULES, labelRuleSchema, SELF_SEGMENTING_POLICY_PROMPT } from "@stepwiser/core";
import { z } from "zod";
import { endpointSnapshotSchema } from "../../inference/endpoint-clients";

export const ANNOTATION_STRATEGIES = ["fixed", "early-stop", "first-error"] as const;
export type AnnotationStrategy = (typeof ANNOTATION_STRATEGIES)[number];

export const annotateConfigSchema = z
  .object({
    datasetId: z.string().min(1),
    /** Which segmentation of each trajectory to annotate. */
    segmentationMethod: z.string().min(1).default("self-segmented"),
    /** Only these trajectories (default: the whole dataset). */
    trajectoryIds: z.array(z.string().min(1)).optional(),
    limit: z.number().int().min(1).optional(),
    /**
     * Leave out solutions whose problem a generate run's prompt filter marked (all samples right, or all
     * wrong): their chunks teach a judge little, and annotating them is the costliest step.
     */
    skipFilteredOut: z.boolean().default(true),
    /** The policy endpoint's name; the run snapshots its model and URLs into `policy`. */
    policyEndpoint: z.string().min(1),
    policy: endpointSnapshotSchema.optional(),
    promptTemplateId: z.literal(SELF_SEGMENTING_POLICY_PROMPT.id).default(SELF_SEGMENTING_POLICY_PROMPT.id),
    /** M: rollouts per chunk prefix (paper: 16). */
    rollouts: z.number().int().min(1).max(256).default(16),
    temperature: z.number().min(0).max(2).default(1),
    maxTokens: z.number().int().min(1).max(65_536).default(4096),
    /**
     * fixed: M rollouts from every prefix (Q-values for every rule).
     * early-stop: Abs-Q only; from the last prefix backwards, stop a prefix at its
     * first success and stop altogether once one succeeds.
     * first-error: Abs-Q only; binary search for the first prefix with no success.
     */
    strategy: z.enum(ANNOTATION_STRATEGIES).default("fixed"),
    /** Rollouts drawn per request by the cheaper strategies before they look again. */
    earlyStopBatch: z.number().int().min(1).max(256).default(4),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
    labelRules: z.array(labelRuleSchema).min(1).default([DEFAULT_LABEL_RULES["abs-q"], DEFAULT_LABEL_RULES["rel-ratio"], DEFAULT_LABEL_RULES["rel-effective"]]),
    /** Solutions annotated at once (each sends its rollouts together). */
    concurrency: z.number().int().min(1).max(4096).default(32),
  })
  .superRefine((config, ctx) => {
    if (config.strategy !== "fixed" && config.labelRules.some((r) => r.rule !== "abs-q")) {
      ctx.addIssue({ code: "custom", path: ["labelRules"], message: `the ${config.strategy} strategy only estimates Abs-Q; use strategy "fixed" for other rules` });
    }
  });

export type AnnotateConfig = z.output<typeof annotateConfigSchema>;
export type AnnotateConfigInput = z.input<typeof annotateConfigSchema>;
