import { z } from "zod";
import { count, judgeOutputsSchema, share } from "../../kit/summary-fields";

const interval = z.object({ lower: z.number(), upper: z.number() });
const figures = z.object({ prmscore: z.number(), f1: z.number(), negative_f1: z.number(), n: count });
const figureIntervals = z.object({ prmscore: interval, f1: interval, negative_f1: interval });
const prmbenchSummarySchema = figures.extend({
  by_class: z.record(z.string(), figures),
  ci95: figureIntervals.nullable(),
  by_class_ci95: z.record(z.string(), figureIntervals),
  /** Items judged whose output could not be read as step labels (left out, as the evaluator leaves out invalid outputs), and items not judged. */
  invalid: count,
  missing: count,
});

const subsetScore = z.object({ n: count, n_error: count, n_correct: count, acc_err: share, acc_cor: share, f1: share });
const intervalBySubset = z.record(z.string(), interval);

/** What a benchmark run's `summarize` stores: ProcessBench's numbers per subset, with their intervals. */
export const benchmarkSummarySchema = z.object({
  /** `id@vN` of the judge protocol; summaries written before protocols say `mode` instead. */
  protocol: z.string().optional(),
  mode: z.enum(["chunk-judge", "critic"]).optional(),
  promptTemplateId: z.string().nullable().optional(),
  judge: z.string().optional(),
  subsets: z.record(z.string(), subsetScore),
  average_f1: share,
  /** The subsets averaged (sorted) and whether that is fewer or other than ProcessBench's four; summaries written before them derive both from `subsets`. */
  subsets_in_average: z.array(z.string()).optional(),
  average_is_partial: z.boolean().optional(),
  f1_ci95: intervalBySubset,
  /** Written since every ProcessBench number has its bootstrap interval; older summaries lack them (the results page recomputes them). */
  acc_err_ci95: intervalBySubset.optional(),
  acc_cor_ci95: intervalBySubset.optional(),
  average_f1_ci95: interval.nullable().optional(),
  unparseable: count,
  missing: count,
  judgeOutputs: judgeOutputsSchema.optional(),
  /** PRMBench runs: PRMScore, F1 and negative F1 over the modified items' steps and per class, as PRMBench's evaluator computes them, with intervals over items. */
  prmbench: prmbenchSummarySchema.optional(),
  /**
   * A built-in simulated judge with independent errors (sim-judge-strong|medium|weak) on the StepWiser chunk protocol:
   * the figures its configured per-chunk accuracy alone predicts on these solutions. Describes the simulator, not a real judge.
   */
  simulatorExpectation: z
    .object({
      judge: z.string(),
      accuracy: share,
      positiveBias: share,
      unparseableRate: share,
      samples: count,
      chunkPositiveGivenPositive: share,
      chunkNegativeGivenNegative: share,
      meanChunksCorrect: z.number().nullable(),
      acc_err: share.nullable(),
      acc_cor: share.nullable(),
      f1: share.nullable(),
    })
    .optional(),
});
