import { binaryMetrics, readingAgreement, type ClassMetrics, type ConfusionMatrix, type Label, type LabeledPrediction, type Verdict } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import { describeRun } from "@stepwiser/jobs";
import { availableLabelRules, loadChunkPlaces, loadJudgeReadings, loadMonteCarloLabels, ruleName } from "../../compare/readings";
import { comparableRun } from "../../compare/runs";
import { judgeSummarySchema, readSummary } from "./summaries";
import type { ResultRun } from "./run";

/** Disagreeing chunks listed per reference; the rest are counted. */
export const DISAGREEMENTS_LISTED = 25;

/** A chunk where the judge's majority verdict and the reference label differ, with where to open it. */
export interface JudgeDisagreement {
  chunkId: string;
  solutionId: string;
  externalId: string;
  index: number;
  judge: Verdict;
  reference: Label;
}

export type AgreementReference =
  | { kind: "annotate"; runId: string; runLabel: string; rule: string; paramsKey: string; ruleName: string }
  /** The dataset's own first errors (ProcessBench, the simulated world): chunks before it Positive, it Negative, those after it unknown. */
  | { kind: "source" };

/** The judge run against one reference: on the chunks both read, the 2×2 matrix (plus unparseable), κ and the Negative class's F1. */
export interface JudgeAgreement {
  reference: AgreementReference;
  chunks: number;
  /** `counts[reference][judge]`. */
  matrix: ConfusionMatrix;
  /** Cohen's κ, an unparseable verdict a category of its own (as the compare views count it); null without common chunks. */
  kappa: number | null;
  observedAgreement: number | null;
  /** The error class: F1, precision and recall of the judge's Negative verdicts against the reference's Negative labels. */
  negative: ClassMetrics;
  accuracy: number;
  disagreements: { total: number; listed: JudgeDisagreement[] };
}

/**
 * A judge run's results: its verdicts (from the summary) and its agreement,
 * chunk by chunk on its majority verdicts (the run's tie policy), with every
 * label rule of every annotate run of the same dataset and with the dataset's
 * source first errors where its solutions have them.
 */
export async function judgeResults(db: Db, run: ResultRun) {
  const judgeRun = comparableRun(run);
  const readings = await loadJudgeReadings(db, judgeRun);
  const references: { reference: AgreementReference; labels: Map<string, Label> }[] = [];

  const annotateRuns = await db.run.findMany({
    where: { datasetId: judgeRun.datasetId, kind: "annotate" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, kind: true, name: true, createdAt: true, config: true },
  });
  for (const annotateRun of annotateRuns) {
    const runLabel = describeRun(annotateRun);
    for (const rule of await availableLabelRules(db, annotateRun.id)) {
      const labels = await loadMonteCarloLabels(db, annotateRun.id, rule);
      references.push({ reference: { kind: "annotate", runId: annotateRun.id, runLabel, rule: rule.rule, paramsKey: rule.paramsKey, ruleName: ruleName(rule) }, labels });
    }
  }
  const source = await sourceFirstErrorLabels(db, [...readings.keys()]);
  if (source.size > 0) references.push({ reference: { kind: "source" }, labels: source });

  const agreements: JudgeAgreement[] = [];
  for (const { reference, labels } of references) {
    const pairs: (LabeledPrediction & { chunkId: string })[] = [];
    for (const [chunkId, gold] of labels) {
      const judged = readings.get(chunkId);
      if (judged) pairs.push({ chunkId, gold, predicted: judged.verdict });
    }
    if (pairs.length === 0) continue;
    const agreement = readingAgreement(pairs);
    const metrics = binaryMetrics(agreement.matrix);
    const disagreeing = pairs.filter((p) => p.gold !== p.predicted);
    agreements.push({
      reference,
      chunks: pairs.length,
      matrix: agreement.matrix,
      kappa: agreement.kappa,
      observedAgreement: agreement.observedAgreement,
      negative: metrics.negative,
      accuracy: metrics.accuracy,
      disagreements: { total: disagreeing.length, listed: await listDisagreements(db, disagreeing) },
    });
  }
  return { kind: "judge" as const, summary: readSummary(judgeSummarySchema, run.summary), segmentationMethod: judgeRun.segmentationMethod, tiePolicy: judgeRun.tiePolicy, judgedChunks: readings.size, agreements };
}

/** The first DISAGREEMENTS_LISTED disagreements in solution order, each with its solution and chunk index. */
async function listDisagreements(db: Db, pairs: readonly (LabeledPrediction & { chunkId: string })[]): Promise<JudgeDisagreement[]> {
  const places = await loadChunkPlaces(db, pairs.map((p) => p.chunkId));
  return pairs
    .map((p) => ({ chunkId: p.chunkId, ...places.get(p.chunkId)!, judge: p.predicted, reference: p.gold }))
    .sort((a, b) => a.externalId.localeCompare(b.externalId, undefined, { numeric: true }) || a.solutionId.localeCompare(b.solutionId) || a.index - b.index)
    .slice(0, DISAGREEMENTS_LISTED);
}

const CHUNK_PAGE = 10_000;

/**
 * Chunk labels from the solutions' source first errors, for the judged chunks
 * that lie on a solution's first segmentation (the one its source counted the
 * index on, and the one the inspector opens): before the first error Positive,
 * the first error Negative, after it no label (the source says nothing there);
 * every chunk of a solution without an error (index −1) Positive.
 */
export async function sourceFirstErrorLabels(db: Db, chunkIds: readonly string[]): Promise<Map<string, Label>> {
  const labels = new Map<string, Label>();
  for (let start = 0; start < chunkIds.length; start += CHUNK_PAGE) {
    const rows = await db.$queryRaw<{ id: string; index: number; firstError: number }[]>(Prisma.sql`
      SELECT c.id, c.index, t."sourceFirstErrorIndex" AS "firstError"
      FROM "Chunk" c
      JOIN "Segmentation" s ON s.id = c."segmentationId"
      JOIN "Solution" t ON t.id = s."solutionId"
      WHERE c.id = ANY(${chunkIds.slice(start, start + CHUNK_PAGE)})
        AND t."sourceFirstErrorIndex" IS NOT NULL
        AND s.id = (SELECT f.id FROM "Segmentation" f WHERE f."solutionId" = t.id ORDER BY f."createdAt", f.id LIMIT 1)`);
    for (const row of rows) {
      if (row.firstError < 0 || row.index < row.firstError) labels.set(row.id, "Positive");
      else if (row.index === row.firstError) labels.set(row.id, "Negative");
    }
  }
  return labels;
}
