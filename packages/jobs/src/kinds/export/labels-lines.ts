import type { Db } from "@stepwiser/db";
import { describeStoredLabelRule, labelRuleNameFromStored } from "@stepwiser/core";
import { runPredictions } from "../../judging/predictions";

const PAGE = 200;

/** One line of a labels export: everything known about one chunk from one run, and every human rating of it. */
export interface ChunkLabelsLine {
  run_id: string;
  dataset_id: string;
  solution_id: string;
  external_id: string;
  subset: string | null;
  segmentation_id: string;
  segmentation_method: string;
  chunk_index: number;
  text: string;
  /** Q after this chunk, and before it (Q_0 for the first chunk); null where the run did not estimate it. */
  q_value: number | null;
  q_previous: number | null;
  rollouts: number | null;
  correct: number | null;
  /**
   * Every label the run stored for the chunk: its rule, the rule's parameters (Abs-Q: its evidence), its readable name,
   * the label, and its confidence (the posterior probability that the rule on the true Q-values gives this label;
   * null for imported labels, labels whose prefixes were not sampled, and labels stored before confidences existed
   * until `run relabel` fills them in).
   */
  labels: Array<{ rule: string; params: Record<string, unknown>; name: string; label: string; confidence: number | null }>;
  /**
   * Strategy first-error: "assumed" when some of this solution's labels were inferred by the
   * monotonicity the search assumes rather than sampled, "violated" when a success after a failure
   * was seen (every prefix then sampled), "confirmed" when every prefix was sampled; null otherwise.
   */
  monotonicity: string | null;
  human_labels: Array<{ author_id: string; external_author: string | null; rating: number | null; flagged: boolean; source: string; queue_id: string | null; created_at: string }>;
}

/**
 * A run's chunk labels as JSON lines, solution by solution in a stable order,
 * read a page of solutions at a time so any size of run streams.
 */
export async function* chunkLabelsLines(db: Db, runId: string): AsyncGenerator<ChunkLabelsLine> {
  let cursor: string | undefined;
  for (;;) {
    const page = await db.segmentation.findMany({
      where: { OR: [{ chunkValues: { some: { runId } } }, { chunks: { some: { labels: { some: { runId } } } } }] },
      orderBy: { id: "asc" },
      take: PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: {
        id: true,
        method: true,
        solution: { select: { id: true, datasetId: true, externalId: true, subset: true, runStats: { where: { runId }, select: { monotonicity: true } } } },
        chunkValues: { where: { runId }, select: { prefixLength: true, qValue: true, rolloutCount: true, correctCount: true } },
        chunks: {
          orderBy: { index: "asc" },
          select: {
            index: true,
            text: true,
            labels: { where: { runId }, select: { rule: true, paramsKey: true, label: true, confidence: true }, orderBy: [{ rule: "asc" }, { paramsKey: "asc" }] },
            humanLabels: {
              orderBy: { createdAt: "asc" },
              select: { authorId: true, externalAuthor: true, rating: true, flagged: true, source: true, queueId: true, createdAt: true },
            },
          },
        },
      },
    });
    for (const segmentation of page) {
      const values = new Map(segmentation.chunkValues.map((v) => [v.prefixLength, v]));
      for (const chunk of segmentation.chunks) {
        const value = values.get(chunk.index + 1);
        yield {
          run_id: runId,
          dataset_id: segmentation.solution.datasetId,
          solution_id: segmentation.solution.id,
          external_id: segmentation.solution.externalId,
          subset: segmentation.solution.subset,
          segmentation_id: segmentation.id,
          segmentation_method: segmentation.method,
          chunk_index: chunk.index,
          text: chunk.text,
          q_value: value?.qValue ?? null,
          q_previous: values.get(chunk.index)?.qValue ?? null,
          rollouts: value ? value.rolloutCount : null,
          correct: value ? value.correctCount : null,
          labels: chunk.labels.map((l) => ({
            rule: labelRuleNameFromStored(l.rule) ?? l.rule,
            params: JSON.parse(l.paramsKey) as Record<string, unknown>,
            name: describeStoredLabelRule(l.rule, l.paramsKey),
            label: l.label,
            confidence: l.confidence,
          })),
          monotonicity: segmentation.solution.runStats[0]?.monotonicity ?? null,
          human_labels: chunk.humanLabels.map((h) => ({
            author_id: h.authorId,
            external_author: h.externalAuthor,
            rating: h.rating,
            flagged: h.flagged,
            source: h.source,
            queue_id: h.queueId,
            created_at: h.createdAt.toISOString(),
          })),
        };
      }
    }
    if (page.length < PAGE) return;
    cursor = page[page.length - 1]!.id;
  }
}

/**
 * ProcessBench predictions `{id, prediction}` of a benchmark run (its stored
 * solution predictions) or a judge run (the first chunk its majority verdict
 * calls Negative, -1 if none).
 */
export async function* judgePredictionLines(db: Db, runId: string): AsyncGenerator<{ id: string; prediction: number | null }> {
  let cursor: { runId: string; solutionId: string } | undefined;
  for (;;) {
    const page = await db.solutionRunStat.findMany({
      where: { runId },
      orderBy: { solutionId: "asc" },
      take: 500,
      ...(cursor ? { cursor: { runId_solutionId: cursor }, skip: 1 } : {}),
      select: { solutionId: true, firstNegative: true, solution: { select: { externalId: true } } },
    });
    for (const row of page) yield { id: row.solution.externalId, prediction: row.firstNegative };
    if (page.length < 500) return;
    cursor = { runId, solutionId: page[page.length - 1]!.solutionId };
  }
}

/** The run kinds whose predictions export: a benchmark run's stored predictions, a judge run's first Negative chunks. */
export const PREDICTION_RUN_KINDS = ["benchmark", "judge"] as const;

/** ProcessBench predictions `{id, prediction}` of a benchmark or judge run, whichever `kind` it is. */
export function predictionLines(db: Db, run: { id: string; kind: (typeof PREDICTION_RUN_KINDS)[number] }): AsyncGenerator<{ id: string; prediction: number | null }> {
  return run.kind === "benchmark" ? runPredictions(db, run.id) : judgePredictionLines(db, run.id);
}
