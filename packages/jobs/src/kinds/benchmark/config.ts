import { z } from "zod";
import { judgeProtocolFields, judgeSamplingFields, refuseBadJudgeSettings, withJudgeSamplingDefaults, withStoredJudgeSampling } from "../../judging/judge-run";

/**
 * Runs stored before judge protocols named their way of judging `mode`: chunk-judge
 * (each paragraph judged with the StepWiser prompt) is protocol stepwiser-chunk, critic
 * (one request per solution with the ProcessBench critic prompt) is processbench-critic.
 */
function protocolFromMode(stored: unknown): unknown {
  if (typeof stored !== "object" || stored === null || "protocol" in stored || !("mode" in stored)) return stored;
  const { mode } = stored as { mode: unknown };
  const protocol = MODE_PROTOCOLS[mode as BenchmarkMode];
  return protocol ? { ...stored, protocol } : stored;
}

const MODE_PROTOCOLS = { "chunk-judge": "stepwiser-chunk", critic: "processbench-critic" } as const;
type BenchmarkMode = keyof typeof MODE_PROTOCOLS;

/** A configuration that still says `mode` must not say a different `protocol`. */
function refuseModeAgainstProtocol(config: { mode?: BenchmarkMode; protocol: string }, ctx: z.RefinementCtx): void {
  if (config.mode !== undefined && MODE_PROTOCOLS[config.mode] !== config.protocol) {
    ctx.addIssue({ code: "custom", path: ["mode"], message: `mode "${config.mode}" is protocol ${MODE_PROTOCOLS[config.mode]}, but protocol says ${config.protocol}; give protocol alone` });
  }
}

const benchmarkConfigFields = z.object({
  /** A ProcessBench dataset (its solutions' source labels are the gold first errors). */
  datasetId: z.string().min(1),
  /** How the judge is asked and read; the prediction is the first step it calls wrong (-1 if none). */
  ...judgeProtocolFields,
  /** Superseded by `protocol`, still read: chunk-judge is stepwiser-chunk, critic is processbench-critic. */
  mode: z.enum(["chunk-judge", "critic"]).optional(),
  /**
   * processbench-critic's prompt and answer reading: v2 is the official ProcessBench template and
   * scorer (published F1s are comparable), v1 our own wording, kept for the runs made with it
   * (stored critic runs from before this field say v1).
   */
  criticPromptTemplateId: z.enum(["processbench-critic@v1", "processbench-critic@v2"]).default("processbench-critic@v2"),
  segmentationMethod: z.string().min(1).default("processbench-paragraphs"),
  ...judgeSamplingFields,
  tiePolicy: z.enum(["Negative", "Positive"]).default("Negative"),
  stopAtFirstNegative: z.boolean().default(true),
  limit: z.number().int().min(1).optional(),
  bootstrap: z.object({ resamples: z.number().int().min(100).max(100_000).default(1000), seed: z.number().int().default(0) }).prefault({}),
  /**
   * What the run is scored as, from its dataset (set at launch): ProcessBench's first-error F1, or
   * on a PRMBench import PRMBench's step-level PRMScore, for which every step is judged.
   */
  scoring: z.enum(["processbench", "prmbench"]).default("processbench"),
  concurrency: z.number().int().min(1).max(4096).default(64),
});

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
export const benchmarkStoredConfigSchema = z.preprocess(protocolFromMode, benchmarkConfigFields.transform(withStoredJudgeSampling));

export const benchmarkConfigSchema = z.preprocess(
  protocolFromMode,
  benchmarkConfigFields.superRefine(refuseBadJudgeSettings).superRefine(refuseModeAgainstProtocol).transform(withJudgeSamplingDefaults),
);

export type BenchmarkConfig = z.output<typeof benchmarkConfigSchema>;
