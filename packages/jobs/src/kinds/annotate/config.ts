import { withRenamedStoredField } from "../../kit/config-shape";
import {
  absQEvidenceSchema,
  ANNOTATION_STRATEGIES,
  DEFAULT_ABS_Q_EVIDENCE,
  DEFAULT_LABEL_CONFIDENCE_OPTIONS,
  DEFAULT_ROLLOUT_TEXT_POLICY,
  defaultLabelRules,
  labelConfidenceOptionsSchema,
  labelRuleSchema,
  ROLLOUT_TEXT_POLICIES,
  DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID,
  SELF_SEGMENTING_POLICY_PROMPT_IDS,
  type AbsQEvidence,
} from "@stepwiser/core";
import { z } from "zod";
import { endpointSnapshotSchema } from "../../inference/endpoint-clients";
import { refuseIdenticalSamples } from "../../kit/identical-samples";
import { withLegacyPolicyPrompt } from "../../kit/legacy-prompts";

export { ANNOTATION_STRATEGIES, type AnnotationStrategy } from "@stepwiser/core";

/** An Abs-Q entry of `labelRules` that names no evidence (also in the default rules) takes the config's `absQEvidence`. */
function fillAbsQEvidence(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const config = input as Record<string, unknown>;
  const evidence = config.absQEvidence ?? DEFAULT_ABS_Q_EVIDENCE;
  if (config.labelRules === undefined) return { ...config, labelRules: defaultLabelRules().map((rule) => (rule.rule === "abs-q" ? { ...rule, evidence } : rule)) };
  if (!Array.isArray(config.labelRules)) return input;
  const labelRules = config.labelRules.map((rule: unknown) =>
    typeof rule === "object" && rule !== null && (rule as { rule?: unknown }).rule === "abs-q" && !("evidence" in rule) ? { ...rule, evidence } : rule,
  );
  return { ...config, labelRules };
}

const annotateConfigFields = z.object({
    datasetId: z.string().min(1),
    /** Which segmentation of each solution to annotate. */
    segmentationMethod: z.string().min(1).default("self-segmented"),
    /** Only these solutions (default: the whole dataset). */
    solutionIds: z.array(z.string().min(1)).optional(),
    limit: z.number().int().min(1).optional(),
    /**
     * Leave out solutions whose problem a generate run's prompt filter marked (all samples right, or all
     * wrong): their chunks teach a judge little, and annotating them is the costliest step.
     */
    skipFilteredOut: z.boolean().default(true),
    /** The policy endpoint's name; the run snapshots its model and URLs into `policy`. */
    policyEndpoint: z.string().min(1),
    policy: endpointSnapshotSchema.optional(),
    /** The policy's prompt the rollouts continue under: v2 is the paper's own (Table 11), the default; v1 the studio's first wording (use the one the solutions were generated with). */
    promptTemplateId: z.enum(SELF_SEGMENTING_POLICY_PROMPT_IDS).default(DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID),
    /** M: rollouts per chunk prefix (paper: 16). */
    rollouts: z.number().int().min(1).max(256).default(16),
    /**
     * What each stored rollout keeps: full (its text) or answer-only (answer, correctness, seed and tokens;
     * no text). Q-values, labels, resumption and re-grading need only the latter.
     */
    rolloutText: z.enum(ROLLOUT_TEXT_POLICIES).default(DEFAULT_ROLLOUT_TEXT_POLICY),
    /** Paper: 1.0. */
    temperature: z.number().min(0).max(2).default(1),
    /** Paper: 8192. A rollout cut off before its answer counts as a failure, so a low limit lowers Q on long solutions. */
    maxTokens: z.number().int().min(1).max(65_536).default(8192),
    /**
     * fixed: M rollouts from every prefix (Q-values for every rule).
     * early-stop: Abs-Q only; each prefix sampled in seed order until its own first success.
     * first-error: Abs-Q only; binary search for the first prefix with no success, confirmed,
     * falling back to every prefix when outcomes are not monotone (see docs/DOMAIN.md).
     * adaptive: every rule; each prefix sampled in batches until the labels resting on it reach
     * `targetConfidence` or it has `maxRollouts` (`rollouts` is not used).
     */
    strategy: z.enum(ANNOTATION_STRATEGIES).default("fixed"),
    /** Rollouts drawn per request by the cheaper strategies before they look again. */
    earlyStopBatch: z.number().int().min(1).max(256).default(4),
    /** adaptive: rollouts drawn from a prefix per round; every prefix starts with one batch. */
    adaptiveBatch: z.number().int().min(1).max(256).default(4),
    /** adaptive: a label below this confidence (under any of the run's rules) asks for another batch of each prefix it rests on. */
    targetConfidence: z.number().gt(0).lt(1).default(0.95),
    /** adaptive: the most rollouts one prefix gets. */
    maxRollouts: z.number().int().min(1).max(1024).default(32),
    /**
     * adaptive: generated tokens the run may spend. Once the run's recorded tokens reach it, solutions get
     * no further rounds (every prefix keeps its first batch, so every chunk is labelled); checked between
     * rounds, so rounds already in flight may pass it.
     */
    tokenBudget: z.number().int().min(1).optional(),
    /** How label confidence is computed: the prior of each prefix's Q (jeffreys, the default, or uniform) and Abs-Q's ε. */
    labelConfidence: labelConfidenceOptionsSchema.default(DEFAULT_LABEL_CONFIDENCE_OPTIONS),
    /**
     * An annotate run (e.g. a small fixed pilot) whose rollout counts the confidence prior is fitted to: the run
     * is created with `labelConfidence.prior` "mixture" and the fitted parameters in its snapshot.
     */
    confidencePriorFromRun: z.string().min(1).optional(),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(0),
    /**
     * The evidence of Abs-Q entries of `labelRules` that name none. own-prefix (the paper): chunk i is
     * Positive iff a rollout of its own prefix succeeds. later-prefixes: a success of any later prefix, or
     * a correct final answer, counts too; only for solutions the run's own policy sampled (refused otherwise).
     */
    absQEvidence: absQEvidenceSchema.default(DEFAULT_ABS_Q_EVIDENCE),
    labelRules: z.array(labelRuleSchema).min(1).default(defaultLabelRules),
    /** Solutions annotated at once (each sends its rollouts together). */
    concurrency: z.number().int().min(1).max(4096).default(32),
});

const annotateConfigObject = annotateConfigFields.superRefine((config, ctx) => {
    if (!estimatesEveryRule(config.strategy) && config.labelRules.some((r) => r.rule !== "abs-q")) {
      ctx.addIssue({ code: "custom", path: ["labelRules"], message: `the ${config.strategy} strategy only estimates Abs-Q; use strategy "fixed" or "adaptive" for other rules` });
    }
    if (config.strategy === "adaptive") {
      if (config.maxRollouts < config.adaptiveBatch) ctx.addIssue({ code: "custom", path: ["maxRollouts"], message: `maxRollouts (${config.maxRollouts}) must be at least adaptiveBatch (${config.adaptiveBatch})` });
      refuseIdenticalSamples(ctx, { samplesField: "maxRollouts", samples: config.maxRollouts, temperatureField: "temperature", temperature: config.temperature, usual: "paper: 1.0" });
    } else {
      refuseIdenticalSamples(ctx, { samplesField: "rollouts", samples: config.rollouts, temperatureField: "temperature", temperature: config.temperature, usual: "paper: 1.0" });
    }
  });

/** Strategies that store a Q-value for every prefix (so every rule, and relabelling under any rule). */
export function estimatesEveryRule(strategy: AnnotateConfig["strategy"]): boolean {
  return strategy === "fixed" || strategy === "adaptive";
}

export const annotateConfigSchema = z.preprocess(fillAbsQEvidence, annotateConfigObject);

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
/** Solutions selected by id were stored as `trajectoryIds` before 2026-12-03. */
export const annotateStoredConfigSchema = z.preprocess(
  (stored) => fillAbsQEvidence(withLegacyPolicyPrompt(withRenamedStoredField(stored, "trajectoryIds", "solutionIds"))),
  annotateConfigFields,
);

export type AnnotateConfig = z.output<typeof annotateConfigSchema>;
export type AnnotateConfigInput = z.input<typeof annotateConfigObject>;

/**
 * The Abs-Q evidence the cheaper strategies sample for: later-prefixes (which lets them stop
 * sooner) only when every Abs-Q rule of the run asks for it. Sampling for own-prefix also
 * settles later-prefixes labels, so a run may store both.
 */
export function samplingEvidence(config: Pick<AnnotateConfig, "labelRules">): AbsQEvidence {
  const absQ = config.labelRules.filter((r) => r.rule === "abs-q");
  return absQ.length > 0 && absQ.every((r) => r.evidence === "later-prefixes") ? "later-prefixes" : "own-prefix";
}

/** Where a config asks for later-prefixes evidence, as the field to name in a refusal; null when it does not. */
export function laterPrefixesField(config: Pick<AnnotateConfig, "labelRules" | "absQEvidence">): string | null {
  const index = config.labelRules.findIndex((r) => r.rule === "abs-q" && r.evidence === "later-prefixes");
  if (index === -1) return null;
  return config.absQEvidence === "later-prefixes" ? "absQEvidence" : `labelRules.${index}.evidence`;
}
