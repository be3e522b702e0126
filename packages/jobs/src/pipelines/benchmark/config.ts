import { z } from "zod";
import { judgeSamplingFields, refuseIdenticalJudgeSamples } from "../judge/judge-run";

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
export const benchmarkStoredConfigSchema = z.object({
  /** A ProcessBench dataset (its solutions' source labels are the gold first errors). */
  datasetId: z.string().min(1),
  /**
   * chunk-judge: each paragraph judged with the StepWiser prompt and its history,
   * the first Negative vote is the prediction. critic: one request per solution
   * with the ProcessBench critic prompt, the boxed index is the prediction.
   */
  mode: z.enum(["chunk-judge", "critic"]).default("chunk-judge"),
  /**
   * critic mode's prompt and answer reading: v2 is the official ProcessBench template and
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
  concurrency: z.number().int().min(1).max(4096).default(64),
});

export const benchmarkConfigSchema = benchmarkStoredConfigSchema.superRefine(refuseIdenticalJudgeSamples);

export type BenchmarkConfig = z.output<typeof benchmarkConfigSchema>;
