import { DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID, SELF_SEGMENTING_POLICY_PROMPT_IDS, SOLUTION_AGGREGATIONS } from "@stepwiser/core";
import { z } from "zod";

/** The supervised fine-tuning layouts: chat JSON lines (OpenRLHF's SFT trainer), TRL's SFT trainer, verl's (Parquet). */
export const SFT_FORMATS = ["chat-jsonl", "trl-sft", "verl-sft"] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

const seed = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1)
  .default(0);

const sftFields = {
  /** The run the rows come from. */
  runId: z.string().min(1),
  format: z.enum(SFT_FORMATS).default("chat-jsonl"),
  seed,
  /** The user message: the self-segmenting policy prompt with the problem (default: the paper's, Table 11). */
  policyPromptTemplateId: z.enum(SELF_SEGMENTING_POLICY_PROMPT_IDS).default(DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID),
};

/** `segmentation-sft`: a segment run's segmentations as SFT rows for the self-segmenting policy (paper §3.1). */
export const segmentationSftExportSchema = z.object({
  ...sftFields,
  /** Responses kept per problem, drawn with the seed (paper: up to 4 correct responses per prompt). */
  maxPerProblem: z.number().int().min(1).max(1024).default(4),
  /** Keep responses whose final answer is wrong or ungraded too (default: correct ones only, as the paper). */
  includeIncorrect: z.boolean().default(false),
  /** Share of problems held out for the test split. */
  heldOutFraction: z.number().min(0).max(0.5).default(0.1),
});

/** `selection`: stepwise data selection from a judge run (paper §4.4, Table 8), for rejection-sampling fine-tuning. */
export const selectionExportSchema = z.object({
  ...sftFields,
  aggregate: z.enum(SOLUTION_AGGREGATIONS),
  /** "outcome": a seeded random correct response instead of the judge's best (the paper's outcome-only selection). */
  baseline: z.enum(["outcome"]).optional(),
  /** Share of problems held out for the test split (default 0: every selected response trains). */
  heldOutFraction: z.number().min(0).max(0.5).default(0),
});

export type SegmentationSftExportOptions = z.output<typeof segmentationSftExportSchema>;
export type SelectionExportOptions = z.output<typeof selectionExportSchema>;
