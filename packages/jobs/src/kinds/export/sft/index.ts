import { InputError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { OtherRuns } from "../../../runs/run-kind";
import type { ExportedFile } from "../training-set/export";
import { writeSftExport } from "./files";
import { segmentationSftExportSchema, selectionExportSchema, type SegmentationSftExportOptions, type SelectionExportOptions } from "./options";
import { segmentationSftRows, segmentRunOf } from "./segmentation-sft";
import { judgeRunOf, selectionRows } from "./selection";

export { SFT_FORMATS, segmentationSftExportSchema, selectionExportSchema, type SftFormat, type SegmentationSftExportOptions, type SelectionExportOptions } from "./options";
export { segmentationSftRows } from "./segmentation-sft";
export { selectionRows, type SelectionCounts } from "./selection";
export { sftMessages, type SegmentationSftRow, type SelectionRow } from "./rows";
export { sftLaunchPlan, SFT_TRAINER_RELEASES, type SftLaunchInput } from "./launch";

/**
 * Refuses, before an export run is queued, what would give no row: a run of the wrong
 * kind, or one that holds nothing to select from. Every refusal names its field.
 */
export async function checkSegmentationSftSource(db: Db, options: SegmentationSftExportOptions, runs: OtherRuns): Promise<void> {
  const run = await segmentRunOf(db, options.runId, runs);
  const any = await db.segmentation.findFirst({ where: { runId: run.id, method: run.method }, select: { id: true } });
  if (!any) throw new InputError(`segment run ${run.id} stored no segmentation (${run.method}) to export`, { field: "runId" });
  if (options.includeIncorrect) return;
  const correct = await db.segmentation.findFirst({ where: { runId: run.id, method: run.method, solution: { finalAnswerCorrect: true } }, select: { id: true } });
  if (!correct) throw new InputError(`none of the responses segment run ${run.id} segmented has a correct final answer; includeIncorrect keeps the others`, { field: "includeIncorrect" });
}

export async function checkSelectionSource(db: Db, options: SelectionExportOptions, runs: OtherRuns): Promise<void> {
  const run = await judgeRunOf(db, options.runId, runs);
  const any = await db.judgeSample.findFirst({ where: { runId: run.id }, select: { id: true } });
  if (!any) throw new InputError(`judge run ${run.id} (${run.judgeConfig.protocol}) judged no chunk: selection needs chunk scores`, { field: "runId" });
  const correct = await db.judgeSample.findFirst({ where: { runId: run.id, chunk: { segmentation: { solution: { finalAnswerCorrect: true } } } }, select: { id: true } });
  if (!correct) throw new InputError(`judge run ${run.id} judged no response whose final answer is correct: there is nothing to select`, { field: "runId" });
}

const SEGMENTATION_SFT_PROCEDURE = (o: SegmentationSftExportOptions, method: string) => [
  `Every segmentation the segment run stored (method ${method}) is one candidate response: the chunks are exact slices of the solution, accepted only when they reconstructed it.`,
  o.includeIncorrect ? "Responses are kept whatever their final answer (includeIncorrect)." : "Only responses whose final answer is correct are kept (the paper keeps correct responses); problems with none are counted.",
  `At most ${o.maxPerProblem} responses per problem are kept: when a problem has more, they are drawn without replacement with seed \`${o.seed}:keep:<the problem text's SHA-256>\` (stable across copies of the dataset) and kept in external-id order.`,
  "The user message is the self-segmenting policy prompt with the problem; the assistant message is the solution with each chunk wrapped in <chunk> tags where it stands, the text between chunks as it is, so removing the tags gives `original` back exactly. A response whose text holds a chunk tag is left out and counted.",
  `Problems are shuffled (sorted ids, seed \`${o.seed}:problems\`) and round(heldOutFraction × problems) of them held out for test; each split's rows are shuffled with seed \`${o.seed}:train\` or \`${o.seed}:test\`.`,
];

const SELECTION_PROCEDURE = (o: SelectionExportOptions, method: string) => [
  `For each problem of the judge run's dataset, its responses segmented by ${method} are the candidates, in external-id order.`,
  `A candidate's chunk scores are the judge run's, over its chunks judged in order: the mean of a chunk's samples' scores, or the share of Positive verdicts where the protocol scores none (an all-unparseable chunk scores 0). Its score is their ${o.aggregate}.`,
  "Only candidates whose final answer is correct and that have a judged chunk compete. A problem with no correct candidate, or no judged correct one, is skipped and counted.",
  o.baseline === "outcome"
    ? `Outcome-only baseline: one competitor is drawn at random, seed \`${o.seed}:outcome:<the problem text's SHA-256>\`, ignoring the scores (the paper's outcome-only selection).`
    : "The competitor with the highest score is selected; ties go to the earliest in external-id order.",
  "The user message is the self-segmenting policy prompt with the problem; the assistant message is the selected response with each chunk in <chunk> tags where it stands.",
];

export async function exportSegmentationSft(db: Db, input: unknown, runs: OtherRuns): Promise<{ files: ExportedFile[]; report: Record<string, unknown> }> {
  const options = segmentationSftExportSchema.parse(input);
  const selection = await segmentationSftRows(db, options, runs);
  if (selection.rows.length === 0) {
    throw new InputError(`segment run ${options.runId} gives no row: ${JSON.stringify(selection.counts)}`, { field: options.includeIncorrect ? "runId" : "includeIncorrect" });
  }
  return writeSftExport(db, runs, {
    kind: "segmentation-sft",
    format: options.format,
    runId: options.runId,
    seed: options.seed,
    heldOutFraction: options.heldOutFraction,
    rows: selection.rows,
    datasetIds: selection.datasetIds,
    title: `StepWiser self-segmentation SFT · ${selection.method} · run ${options.runId}`,
    rowUnit: "one response of the policy: the policy prompt with the problem, and the response with its chunks in <chunk> tags",
    procedure: SEGMENTATION_SFT_PROCEDURE(options, selection.method),
    report: {
      method: selection.method,
      maxPerProblem: options.maxPerProblem,
      includeIncorrect: options.includeIncorrect,
      policyPromptTemplate: options.policyPromptTemplateId,
      selectionRule: options.includeIncorrect ? `any response, at most ${options.maxPerProblem} per problem (seeded)` : `correct responses only, at most ${options.maxPerProblem} per problem (seeded)`,
      counts: selection.counts,
      chunkStats: { before: { method: "blank-line", ...selection.chunkStats.before }, after: { method: selection.method, ...selection.chunkStats.after } },
    },
  });
}

export async function exportSelection(db: Db, input: unknown, runs: OtherRuns): Promise<{ files: ExportedFile[]; report: Record<string, unknown> }> {
  const options = selectionExportSchema.parse(input);
  const selection = await selectionRows(db, options, runs);
  if (selection.rows.length === 0) throw new InputError(`judge run ${options.runId} gives no selected response: ${JSON.stringify(selection.counts)}`, { field: "runId" });
  return writeSftExport(db, runs, {
    kind: "selection",
    format: options.format,
    runId: options.runId,
    seed: options.seed,
    heldOutFraction: options.heldOutFraction,
    rows: selection.rows,
    datasetIds: selection.datasetIds,
    title: `StepWiser stepwise data selection · ${options.baseline === "outcome" ? "outcome-only baseline" : `${options.aggregate} chunk score`} · run ${options.runId}`,
    rowUnit: "one problem's selected response: the policy prompt with the problem, the response with its chunks in <chunk> tags, its score and every candidate's",
    procedure: SELECTION_PROCEDURE(options, selection.segmentationMethod),
    report: {
      aggregate: options.aggregate,
      baseline: options.baseline ?? null,
      segmentationMethod: selection.segmentationMethod,
      protocol: selection.protocol,
      policyPromptTemplate: options.policyPromptTemplateId,
      selectionRule:
        options.baseline === "outcome"
          ? "per problem, a seeded random response among the correct ones with a judged chunk (outcome-only)"
          : `per problem, the correct response with the highest ${options.aggregate} chunk score (ties to the earliest)`,
      counts: selection.counts,
    },
  });
}
