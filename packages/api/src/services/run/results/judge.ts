import {
  binaryMetrics,
  readingAgreement,
  solutionErrorDetection,
  stepLevelScores,
  type ClassMetrics,
  type ConfusionMatrix,
  type Label,
  type LabeledPrediction,
  type Verdict,
} from "@stepwiser/core";
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
  /** Step labels an import stored with the dataset (Math-Shepherd's hard labels, a JSONL file's labels). */
  | { kind: "imported"; runId: string; runLabel: string; ruleName: string }
  /** PRMBench's gold: every listed error step Negative, every other step Positive. */
  | { kind: "prmbench" }
  /** Human step ratings imported with the dataset (PRM800K): +1 Positive, −1 Negative; a neutral 0 labels nothing. */
  | { kind: "imported-ratings" }
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
  /** Step level against any gold labels: the correct class's F1, precision and recall, and balanced accuracy (the two recalls' mean). */
  positive: ClassMetrics;
  balancedAccuracy: number;
  accuracy: number;
  /** Solution level, over solutions with a labelled judged step: "has an error" (a Negative label) against the judge calling a step Negative. */
  solutions: ReturnType<typeof solutionErrorDetection>;
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
    where: { datasetId: judgeRun.datasetId, kind: { in: ["annotate", "import"] } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, kind: true, name: true, createdAt: true, config: true },
  });
  for (const annotateRun of annotateRuns) {
    const runLabel = describeRun(annotateRun);
    for (const rule of await availableLabelRules(db, annotateRun.id)) {
      const labels = await loadMonteCarloLabels(db, annotateRun.id, rule);
      const reference: AgreementReference =
        annotateRun.kind === "import"
          ? { kind: "imported", runId: annotateRun.id, runLabel, ruleName: ruleName(rule) }
          : { kind: "annotate", runId: annotateRun.id, runLabel, rule: rule.rule, paramsKey: rule.paramsKey, ruleName: ruleName(rule) };
      references.push({ reference, labels });
    }
  }
  const judged = [...readings.keys()];
  const prmbench = await prmbenchGoldLabels(db, judged);
  if (prmbench.size > 0) references.push({ reference: { kind: "prmbench" }, labels: prmbench });
  const ratings = await importedRatingLabels(db, judged);
  if (ratings.size > 0) references.push({ reference: { kind: "imported-ratings" }, labels: ratings });
  const source = await sourceFirstErrorLabels(db, judged);
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
    const steps = stepLevelScores(agreement.matrix);
    const disagreeing = pairs.filter((p) => p.gold !== p.predicted);
    const places = await loadChunkPlaces(db, pairs.map((p) => p.chunkId));
    const bySolution = new Map<string, { gold: Label[]; predicted: Verdict[] }>();
    for (const pair of pairs) {
      const solutionId = places.get(pair.chunkId)!.solutionId;
      const entry = bySolution.get(solutionId) ?? { gold: [], predicted: [] };
      entry.gold.push(pair.gold);
      entry.predicted.push(pair.predicted);
      bySolution.set(solutionId, entry);
    }
    agreements.push({
      reference,
      chunks: pairs.length,
      matrix: agreement.matrix,
      kappa: agreement.kappa,
      observedAgreement: agreement.observedAgreement,
      negative: metrics.negative,
      positive: steps.positive,
      balancedAccuracy: steps.balancedAccuracy,
      accuracy: metrics.accuracy,
      solutions: solutionErrorDetection(bySolution.values()),
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

/**
 * PRMBench's gold step labels for the judged chunks of its items (metadata.prmbench.error_steps,
 * 1-based): a listed error step Negative, every other step Positive.
 */
export async function prmbenchGoldLabels(db: Db, chunkIds: readonly string[]): Promise<Map<string, Label>> {
  const labels = new Map<string, Label>();
  for (let start = 0; start < chunkIds.length; start += CHUNK_PAGE) {
    const rows = await db.$queryRaw<{ id: string; index: number; errorSteps: unknown }[]>(Prisma.sql`
      SELECT c.id, c.index, t.metadata -> 'prmbench' -> 'error_steps' AS "errorSteps"
      FROM "Chunk" c
      JOIN "Segmentation" s ON s.id = c."segmentationId"
      JOIN "Solution" t ON t.id = s."solutionId"
      WHERE c.id = ANY(${chunkIds.slice(start, start + CHUNK_PAGE)})
        AND s.method = 'prmbench-steps'
        AND jsonb_typeof(t.metadata -> 'prmbench' -> 'error_steps') = 'array'`);
    for (const row of rows) {
      const errors = new Set((row.errorSteps as unknown[]).filter((s): s is number => typeof s === "number"));
      labels.set(row.id, errors.has(row.index + 1) ? "Negative" : "Positive");
    }
  }
  return labels;
}

/** Imported human ratings of the judged chunks (PRM800K): +1 Positive, −1 Negative; a chunk rated both ways or only 0 has no label. */
export async function importedRatingLabels(db: Db, chunkIds: readonly string[]): Promise<Map<string, Label>> {
  const labels = new Map<string, Label>();
  for (let start = 0; start < chunkIds.length; start += CHUNK_PAGE) {
    const rows = await db.humanLabel.groupBy({
      by: ["chunkId", "rating"],
      where: { chunkId: { in: chunkIds.slice(start, start + CHUNK_PAGE) }, source: "imported", rating: { in: [1, -1] } },
    });
    const seen = new Map<string, Set<number>>();
    for (const row of rows) seen.set(row.chunkId, (seen.get(row.chunkId) ?? new Set()).add(row.rating!));
    for (const [chunkId, values] of seen) if (values.size === 1) labels.set(chunkId, values.has(1) ? "Positive" : "Negative");
  }
  return labels;
}
