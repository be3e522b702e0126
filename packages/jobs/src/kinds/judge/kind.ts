import { judgeProtocolRef } from "@stepwiser/core";
import { z } from "zod";
import { judgeProtocolFields, judgeSamplingFields, refuseBadJudgeSettings, segmentationJudgeRun, withJudgeSamplingDefaults, withStoredJudgeSampling } from "../../judging/judge-run";
import { judgeOutputCounts } from "../../judging/output-counts";
import { checkJudgeProtocol } from "../../judging/protocol-check";
import { judgeWithProtocol, solutionEvidenceColumns } from "../../judging/protocol-judge";
import { withRenamedStoredField } from "../../kit/config-shape";
import { modelOf, usedEndpoint } from "../../kit/kind-facts";
import { writeSolutionRunStat } from "../../kit/solution-stats";
import type { UnitRunKind } from "../../runs/run-kind";
import { judgeBatch } from "./batch";
import { judgeFormHints } from "./form-hints";
import { judgeMcAgreement, judgeResultColumns } from "./result-columns";
import { judgeSummarySchema } from "./summary";

/** The configuration as a stored run holds it: its fields and defaults, without the checks only a new submission must pass (runs stored before a check was added still read). */
const judgeConfigFields = z.object({
  datasetId: z.string().min(1),
  segmentationMethod: z.string().min(1).default("self-segmented"),
  /** Only these solutions (default: the whole dataset). */
  solutionIds: z.array(z.string().min(1)).optional(),
  limit: z.number().int().min(1).optional(),
  ...judgeSamplingFields,
  ...judgeProtocolFields,
  tiePolicy: z.enum(["Negative", "Positive"]).default("Negative"),
  stopAtFirstNegative: z.boolean().default(false),
  concurrency: z.number().int().min(1).max(4096).default(32),
});

/** Solutions selected by id were stored as `trajectoryIds` before 2026-12-03. */
export const judgeStoredConfigSchema = z.preprocess((stored) => withRenamedStoredField(stored, "trajectoryIds", "solutionIds"), judgeConfigFields.transform(withStoredJudgeSampling));

export const judgeConfigSchema = judgeConfigFields.superRefine(refuseBadJudgeSettings).transform(withJudgeSamplingDefaults);
export type JudgeConfig = z.output<typeof judgeConfigSchema>;

/** A judge over a dataset or a selection of its solutions: every chunk, K samples, majority votes. */
export const judgeKind: UnitRunKind<JudgeConfig, z.output<typeof judgeSummarySchema>> = {
  kind: "judge",
  execution: "units",
  batch: judgeBatch,
  submitSchema: judgeConfigSchema,
  storedSchema: judgeStoredConfigSchema,
  summarySchema: judgeSummarySchema,
  formHints: judgeFormHints,
  endpoints: (config) => usedEndpoint("judge", config.judge),
  facts: (config) => [modelOf(config.judge, config.judgeEndpoint, "judge"), `K=${config.samples}`],
  ...segmentationJudgeRun,

  async snapshot(db, config) {
    const snapshot = await segmentationJudgeRun.snapshot(db, config);
    checkJudgeProtocol("judge", { ...snapshot, samplesField: "samples" }, snapshot.judge!, "judgeEndpoint");
    return snapshot;
  },

  async runUnit(ctx, segmentationId) {
    const judged = await judgeWithProtocol(ctx, segmentationId);
    // A protocol that answers per solution (ThinkPRM) keeps its chains and score with the solution.
    if (judged.solution) {
      await ctx.db.solutionPrediction.createMany({
        data: [{ runId: ctx.runId, solutionId: judged.solutionId, predictedFirstError: judged.predictedFirstError, ...solutionEvidenceColumns(judged.solution) }],
        skipDuplicates: true,
      });
    }
    await writeSolutionRunStat(ctx.db, {
      runId: ctx.runId,
      solutionId: judged.solutionId,
      datasetId: ctx.config.datasetId,
      chunkCount: judged.chunkCount,
      qMin: null,
      firstNegative: judged.votes.indexOf("Negative"),
      negativeCount: judged.votes.filter((vote) => vote === "Negative").length,
      labelsDisagree: false,
    });
    return { votes: judged.votes, predictedFirstError: judged.predictedFirstError };
  },

  async summarize({ db, runId, config }) {
    const verdicts = await db.judgeSample.groupBy({ by: ["verdict"], where: { runId }, _count: { _all: true } });
    const counts = Object.fromEntries(verdicts.map((v) => [v.verdict, v._count._all]));
    const samples = verdicts.reduce((n, v) => n + v._count._all, 0);
    const outputs = await judgeOutputCounts(db, runId, config.protocol);
    return {
      protocol: judgeProtocolRef(config.protocol),
      samples,
      verdicts: counts,
      unparseableRate: samples ? (counts.unparseable ?? 0) / samples : 0,
      judgeOutputs: outputs,
      ...(config.judgePromptTemplateId ? { judgePromptTemplateId: config.judgePromptTemplateId } : {}),
    };
  },

  resultColumns: async ({ db, runId, config }, summary) => ({ ...judgeResultColumns(summary), ...(await judgeMcAgreement(db, runId, config)) }),
};
