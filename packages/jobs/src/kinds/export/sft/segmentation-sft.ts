import { InputError, keepAtMost, RULE_SEGMENTERS } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { SegmentationStatsAccumulator } from "../../../kit/segmentation-stats";
import type { OtherRuns } from "../../../runs/run-kind";
import type { SegmentationSftExportOptions } from "./options";
import { sftMessages, type SegmentationSftRow } from "./rows";

const PAGE = 500;

/** What the rows were chosen from and how many were left out, by reason. */
export interface SegmentationSftCounts {
  /** The run's segmentations read (each one response). */
  responses: number;
  problems: number;
  /** Responses left out because their final answer is not known to be correct (without includeIncorrect). */
  incorrect: number;
  /** Problems none of whose segmented responses is correct (without includeIncorrect they give no row). */
  problemsWithoutCorrect: number;
  /** Correct (or kept) responses beyond maxPerProblem, not drawn. */
  overLimit: number;
  /** Responses whose chunks hold a chunk tag, which a tagged response cannot carry. */
  tagInText: number;
  rows: number;
}

export interface SegmentationSftSelection {
  rows: Array<SegmentationSftRow & { problemTextHash: string }>;
  method: string;
  counts: SegmentationSftCounts;
  /** Chunk statistics of the rows written: their blank-line split (the baseline) and the run's segmentation. */
  chunkStats: { before: ReturnType<SegmentationStatsAccumulator["result"]>; after: ReturnType<SegmentationStatsAccumulator["result"]> };
  datasetIds: string[];
}

/** The run a segmentation-sft export reads, checked: it must be a segment run. */
export async function segmentRunOf(db: Db, runId: string, runs: OtherRuns) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, kind: true, config: true, datasetId: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  if (run.kind !== "segment") throw new InputError(`run ${runId} is a ${run.kind} run; segmentation-sft reads a segment run`, { field: "runId" });
  const method = runs.segmentMethod({ id: run.id, kind: "segment", config: run.config });
  if (method === null) throw new InputError(`segment run ${runId}'s stored config does not read`, { field: "runId" });
  return { ...run, method };
}

/**
 * The rows of a segmentation-sft export (paper §3.1): every segmentation the segment run
 * stored, as the policy prompt and the chunk-tagged response; by default only responses
 * whose final answer is correct, and at most `maxPerProblem` of a problem's (a seeded draw
 * per problem, `<seed>:keep:<problem text hash>`), in external-id order.
 */
export async function segmentationSftRows(db: Db, options: SegmentationSftExportOptions, runs: OtherRuns): Promise<SegmentationSftSelection> {
  const run = await segmentRunOf(db, options.runId, runs);
  type Read = SegmentationSftRow & { problemTextHash: string; externalId: string; chunkTexts: string[] };
  const byProblem = new Map<string, Read[]>();
  const counts: SegmentationSftCounts = { responses: 0, problems: 0, incorrect: 0, problemsWithoutCorrect: 0, overLimit: 0, tagInText: 0, rows: 0 };
  const datasetIds = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await db.segmentation.findMany({
      where: { runId: run.id, method: run.method },
      orderBy: { id: "asc" },
      take: PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: {
        id: true,
        chunks: { orderBy: { index: "asc" }, select: { text: true, startOffset: true, endOffset: true } },
        solution: { select: { id: true, externalId: true, datasetId: true, text: true, finalAnswerCorrect: true, problemId: true, problem: { select: { text: true, textHash: true } } } },
      },
    });
    for (const segmentation of page) {
      const { solution } = segmentation;
      counts.responses += 1;
      datasetIds.add(solution.datasetId);
      const messages = sftMessages({ problemText: solution.problem.text, text: solution.text, chunks: segmentation.chunks }, options.policyPromptTemplateId);
      if (!messages) {
        counts.tagInText += 1;
        continue;
      }
      const list = byProblem.get(solution.problemId) ?? [];
      if (list.length === 0) byProblem.set(solution.problemId, list);
      list.push({
        messages,
        problem_id: solution.problemId,
        solution_id: solution.id,
        original: solution.text,
        correct: solution.finalAnswerCorrect,
        problemTextHash: solution.problem.textHash,
        externalId: solution.externalId,
        chunkTexts: segmentation.chunks.map((c) => c.text),
      });
    }
    if (page.length < PAGE) break;
    cursor = page[page.length - 1]!.id;
  }
  counts.problems = byProblem.size;
  const before = new SegmentationStatsAccumulator();
  const after = new SegmentationStatsAccumulator();
  const rows: SegmentationSftSelection["rows"] = [];
  for (const problemId of [...byProblem.keys()].sort()) {
    const responses = byProblem.get(problemId)!.sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
    const eligible = options.includeIncorrect ? responses : responses.filter((r) => r.correct === true);
    counts.incorrect += responses.length - eligible.length;
    if (!responses.some((r) => r.correct === true)) counts.problemsWithoutCorrect += 1;
    const kept = keepAtMost(eligible, options.maxPerProblem, options.seed, responses[0]!.problemTextHash);
    counts.overLimit += eligible.length - kept.length;
    for (const { externalId: _externalId, chunkTexts, ...row } of kept) {
      before.add(RULE_SEGMENTERS["blank-line"](row.original).map((c) => c.text));
      after.add(chunkTexts);
      rows.push(row);
    }
  }
  counts.rows = rows.length;
  return { rows, method: run.method, counts, chunkStats: { before: before.result(), after: after.result() }, datasetIds: [...datasetIds].sort() };
}
