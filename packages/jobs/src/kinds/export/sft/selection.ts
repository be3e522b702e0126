import { InputError, selectResponse, type SelectionCandidate } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { votesOfSamples } from "../../../judging/protocol-judge";
import { planProblemIds } from "../../../kit/paging";
import type { OtherRuns } from "../../../runs/run-kind";
import type { SelectionExportOptions } from "./options";
import { sftMessages, type SelectionRow } from "./rows";

/** Problems read and those left out, by reason. */
export interface SelectionCounts {
  /** Problems with at least one response segmented the way the judge run judged. */
  problems: number;
  /** Responses of those problems (candidates), and those the judge judged at least one chunk of. */
  candidates: number;
  judgedCandidates: number;
  /** Skipped: no response with a correct final answer. */
  noCorrectCandidate: number;
  /** Skipped: correct responses, but the judge judged no chunk of any of them. */
  noJudgedChunk: number;
  /** Skipped: the chosen response's chunks hold a chunk tag, which a tagged response cannot carry. */
  tagInText: number;
  rows: number;
}

export interface SelectionResult {
  rows: SelectionRow[];
  counts: SelectionCounts;
  segmentationMethod: string;
  protocol: string;
  datasetIds: string[];
}

/** The run a selection export reads, checked: it must be a judge run. */
export async function judgeRunOf(db: Db, runId: string, runs: OtherRuns) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, kind: true, config: true, datasetId: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  if (run.kind !== "judge") throw new InputError(`run ${runId} is a ${run.kind} run; selection reads the chunk scores of a judge run`, { field: "runId" });
  const scope = runs.judgeScope({ id: run.id, kind: "judge", config: run.config });
  if (scope === null) throw new InputError(`judge run ${runId}'s stored config does not read`, { field: "runId" });
  return { ...run, judgeConfig: scope };
}

/**
 * Stepwise data selection over a judge run (paper §4.4, Table 8). For each problem of the
 * run's dataset, its responses segmented the way the run judged them are the candidates,
 * in external-id order; a candidate's chunk scores are the run's (the mean of its samples'
 * scores, or the share of Positive verdicts where the protocol scores none, as best-of-N
 * reads them), over the chunks judged in order. `selectResponse` then keeps the correct
 * candidate with the highest aggregate score, or with `baseline: "outcome"` a seeded random one.
 */
export async function selectionRows(db: Db, options: SelectionExportOptions, runs: OtherRuns): Promise<SelectionResult> {
  const run = await judgeRunOf(db, options.runId, runs);
  const { judgeConfig: judge } = run;
  const counts: SelectionCounts = { problems: 0, candidates: 0, judgedCandidates: 0, noCorrectCandidate: 0, noJudgedChunk: 0, tagInText: 0, rows: 0 };
  const rows: SelectionRow[] = [];
  const datasetIds = new Set<string>();
  for await (const problemId of planProblemIds(db, { datasetId: judge.datasetId })) {
    const segmentations = await db.segmentation.findMany({
      where: { method: judge.segmentationMethod, solution: { problemId, ...(judge.solutionIds ? { id: { in: judge.solutionIds } } : {}) } },
      orderBy: { solution: { externalId: "asc" } },
      select: {
        id: true,
        chunks: { orderBy: { index: "asc" }, select: { id: true, text: true, startOffset: true, endOffset: true } },
        solution: { select: { id: true, datasetId: true, text: true, finalAnswerCorrect: true, problem: { select: { text: true, textHash: true } } } },
      },
    });
    if (segmentations.length === 0) continue;
    counts.problems += 1;
    const samples = await db.judgeSample.findMany({
      where: { runId: run.id, chunk: { segmentationId: { in: segmentations.map((s) => s.id) } } },
      select: { chunkId: true, verdict: true, score: true },
    });
    const candidates: SelectionCandidate[] = segmentations.map((segmentation) => {
      const ids = new Set(segmentation.chunks.map((c) => c.id));
      const scores = votesOfSamples(segmentation.chunks, samples.filter((s) => ids.has(s.chunkId)), judge.tiePolicy).chunkScores.map((score) => score ?? 0);
      return { solutionId: segmentation.solution.id, correct: segmentation.solution.finalAnswerCorrect === true, chunkScores: scores.length > 0 ? scores : null };
    });
    counts.candidates += candidates.length;
    counts.judgedCandidates += candidates.filter((c) => c.chunkScores !== null).length;
    const outcome = selectResponse({ problemId, seedKey: segmentations[0]!.solution.problem.textHash, candidates }, options);
    if (outcome.kind === "skipped") {
      if (outcome.reason === "no-correct-candidate") counts.noCorrectCandidate += 1;
      else counts.noJudgedChunk += 1;
      continue;
    }
    const chosen = segmentations[outcome.index]!;
    const messages = sftMessages({ problemText: chosen.solution.problem.text, text: chosen.solution.text, chunks: chosen.chunks }, options.policyPromptTemplateId);
    if (!messages) {
      counts.tagInText += 1;
      continue;
    }
    datasetIds.add(chosen.solution.datasetId);
    rows.push({
      problem_id: problemId,
      solution_id: chosen.solution.id,
      messages,
      score: outcome.score,
      candidates: candidates.map((c, i) => ({ solution_id: c.solutionId, correct: c.correct, score: outcome.scores[i] ?? null })),
    });
  }
  counts.rows = rows.length;
  return { rows, counts, segmentationMethod: judge.segmentationMethod, protocol: judge.protocol, datasetIds: [...datasetIds].sort() };
}
