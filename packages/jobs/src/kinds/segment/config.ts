import { CHUNK_SEGMENTER_PROMPT } from "@stepwiser/core";
import { z } from "zod";
import { endpointSnapshotSchema } from "../../inference/endpoint-clients";
import { withRenamedStoredField } from "../../kit/config-shape";

/** The paper's attempts per response (§3.1: each response segmented up to 8 times). */
export const DEFAULT_SEGMENT_ATTEMPTS = 8;
export const DEFAULT_RETRY_TEMPERATURE = 0.7;

export const SEGMENT_METHODS = ["blank-line", "step-markers", "llm-segmenter"] as const;
export type SegmentMethod = (typeof SEGMENT_METHODS)[number];

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
const segmentConfigFields = z
  .object({
    datasetId: z.string().min(1),
    /** Stored as `Segmentation.method`; one segmentation per solution and method. */
    method: z.enum(SEGMENT_METHODS),
    /**
     * Only solutions that already have a segmentation of this method (e.g.
     * "self-segmented" or "processbench-paragraphs"), so methods are compared on
     * the same solutions. The text cut is always `Solution.text`, because chunk
     * offsets index into it.
     */
    sourceMethod: z.string().min(1).optional(),
    /** Only these solutions (default: the whole dataset). */
    solutionIds: z.array(z.string().min(1)).min(1).optional(),
    limit: z.number().int().min(1).optional(),
    /** The segmenter endpoint's name (llm-segmenter only); the run snapshots it into `segmenter`. */
    segmenterEndpoint: z.string().min(1).optional(),
    segmenter: endpointSnapshotSchema.optional(),
    promptTemplateId: z.literal(CHUNK_SEGMENTER_PROMPT.id).default(CHUNK_SEGMENTER_PROMPT.id),
    /** 0: the segmenter should copy, not create. The first attempt samples at this temperature. */
    temperature: z.number().min(0).max(2).default(0),
    /**
     * llm-segmenter: each solution is segmented up to this many times, each attempt with its own seed
     * derived from the run seed, until an answer reconstructs the solution exactly (paper §3.1: up to 8).
     * An answer that does not reconstruct is never repaired.
     */
    attempts: z.number().int().min(1).max(32).default(DEFAULT_SEGMENT_ATTEMPTS),
    /**
     * The temperature of attempts 2 and later (OPEN: the paper does not state it). A retry at
     * temperature 0 would repeat the first answer on a greedy server, so retries sample.
     */
    retryTemperature: z.number().min(0).max(2).default(DEFAULT_RETRY_TEMPERATURE),
    /** The answer repeats the solution plus tags; a cut-off answer cannot reconstruct it. */
    maxTokens: z.number().int().min(1).max(65_536).default(8192),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
    /** Solutions segmented at once. */
    concurrency: z.number().int().min(1).max(4096).default(32),
  });

/** Solutions selected by id were stored as `trajectoryIds` before 2026-12-03. */
export const segmentStoredConfigSchema = z.preprocess((stored) => withRenamedStoredField(stored, "trajectoryIds", "solutionIds"), segmentConfigFields);

export const segmentConfigSchema = segmentConfigFields.superRefine((config, ctx) => {
    if (config.method === "llm-segmenter" && !config.segmenterEndpoint) {
      ctx.addIssue({ code: "custom", path: ["segmenterEndpoint"], message: "the llm-segmenter method needs a segmenter endpoint" });
    }
    if (config.method !== "llm-segmenter" && config.segmenterEndpoint) {
      ctx.addIssue({ code: "custom", path: ["segmenterEndpoint"], message: `the ${config.method} method is a rule and uses no segmenter endpoint` });
    }
  });

export type SegmentConfig = z.output<typeof segmentConfigSchema>;
export type SegmentConfigInput = z.input<typeof segmentConfigSchema>;
