import { InputError, labelRuleSchema } from "@stepwiser/core";
import { z } from "zod";

export const TRAINING_SET_FORMATS = ["verl", "openrlhf", "trl", "trl-prm", "openrlhf-prm"] as const;
export type TrainingSetFormat = (typeof TRAINING_SET_FORMATS)[number];

/** The formats whose rows are solutions with one label per chunk (stepwise supervision for a process reward model). */
export const SOLUTION_FORMATS: readonly TrainingSetFormat[] = ["trl-prm", "openrlhf-prm"];
export const isSolutionFormat = (format: TrainingSetFormat): boolean => SOLUTION_FORMATS.includes(format);

export const trainingSetExportSchema = z.object({
  /** A run whose ChunkLabel rows hold the labels (an annotate run, or an import run that stored labels). */
  annotateRunId: z.string().min(1),
  labelRule: labelRuleSchema,
  format: z.enum(TRAINING_SET_FORMATS),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(0),
  /** Share of problems (not chunks) held out for the test split. */
  heldOutFraction: z.number().min(0).max(0.5).default(0.1),
  /** Bounds on the rendered user message, in Unicode code points; both inclusive. */
  minPromptChars: z.number().int().min(0).optional(),
  maxPromptChars: z.number().int().min(1).optional(),
  /**
   * Keep only labels whose confidence (the posterior probability that the rule on the true Q-values gives the
   * label) is at least this; labels without a confidence are left out too. Applied per split before balancing.
   */
  minConfidence: z.number().min(0).max(1).optional(),
  dataSource: z.string().min(1).max(100).default("stepwiser"),
  /**
   * Tokens the policy may generate per rollout while it is trained as a judge: a rationale and its
   * boxed verdict. The default is the paper's judge generation cap (3096): at the trainers' own
   * defaults (512 in verl) a rationale is cut before its verdict and scores 0. Unused by trl-prm and openrlhf-prm.
   */
  maxResponseTokens: z.number().int().min(1).max(131_072).default(3096),
  /**
   * trl-prm and openrlhf-prm only: balance each split 50/50 between solutions with a Negative step and solutions without one.
   * Off by default: the rarer kind is usually the all-Positive solutions, so balancing keeps few rows.
   * The chunk formats are always balanced 50/50 by label.
   */
  balanceSolutions: z.boolean().default(false),
});

export type TrainingSetExportInput = z.input<typeof trainingSetExportSchema>;
export type TrainingSetExportOptions = z.output<typeof trainingSetExportSchema>;

/** Validates export options; every failure is an InputError naming the offending field. */
export function parseTrainingSetExportOptions(input: TrainingSetExportInput): TrainingSetExportOptions {
  const parsed = trainingSetExportSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { field: issue.path.map(String).join(".") || undefined });
  }
  const options = parsed.data;
  if (options.minPromptChars !== undefined && options.maxPromptChars !== undefined && options.minPromptChars > options.maxPromptChars) {
    throw new InputError(`minPromptChars (${options.minPromptChars}) must not exceed maxPromptChars (${options.maxPromptChars})`, { field: "minPromptChars" });
  }
  if (options.balanceSolutions && !isSolutionFormat(options.format)) {
    throw new InputError(`balanceSolutions applies to trl-prm and openrlhf-prm only; ${options.format} rows are chunks, always balanced 50/50 by label`, { field: "balanceSolutions" });
  }
  return options;
}
