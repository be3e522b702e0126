import { sampleSolutionIds, stratifiedSample, type TiePolicy } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import { z } from "zod";
import { checkSolutionFilter, listOrder, plannedSolutionsFrom, solutionFilterFields } from "../solution/filters";
import { queueLabelRuleSchema, type QueueLabelRule } from "./queue-runs";

export const MAX_QUEUE_ITEMS = 5_000;

const limit = z.number().int().min(1).max(MAX_QUEUE_ITEMS).default(200);
const seed = z.number().int().min(0).max(2 ** 31 - 1).default(0);

/** The solution list's filter as the list page holds it: the dataset is the queue's, so datasetId may be left out (if given it must match). */
export const queueFilterSchema = solutionFilterFields.extend({ datasetId: z.string().min(1).optional() }).superRefine(checkSolutionFilter);

/** How a queue's solutions are chosen; stored on the queue as submitted (defaults filled in). */
export const queueSelectionSchema = z.discriminatedUnion("kind", [
  /** The solution list's solutions in list order. */
  z.object({ kind: z.literal("filter"), filter: queueFilterSchema, limit }),
  /** Solutions where some chunk's judge majority verdict differs from the Monte-Carlo label (needs annotateRunId and judgeRunId). */
  z.object({ kind: z.literal("disagreements"), limit }),
  /** A seeded uniform sample of the solutions a run covered. */
  z.object({ kind: z.literal("random"), runId: z.string().min(1), size: z.number().int().min(1).max(MAX_QUEUE_ITEMS), seed }),
  /** `perStratum` solutions the run labelled with some Negative chunk and as many with none, seeded. */
  z.object({ kind: z.literal("stratified"), runId: z.string().min(1), perStratum: z.number().int().min(1).max(MAX_QUEUE_ITEMS / 2), seed }),
  /**
   * The `count` solutions whose lowest label confidence under `rule` in the annotate run is lowest (ties by
   * solution id; solutions without a confidence left out). The queue audits that run and rule.
   */
  z.object({ kind: z.literal("least-confident"), annotateRunId: z.string().min(1), rule: queueLabelRuleSchema, count: z.number().int().min(1).max(MAX_QUEUE_ITEMS) }),
]);
export type QueueSelection = z.output<typeof queueSelectionSchema>;

export interface SelectionContext {
  datasetId: string;
  segmentationMethod: string;
  annotateRunId: string | null;
  judgeRunId: string | null;
  labelRule: QueueLabelRule | null;
  judgeTiePolicy: TiePolicy;
}

export interface SelectedSolution {
  solutionId: string;
  segmentationId: string;
}

/** Solutions that have a segmentation of the queue's method: the only ones an annotator can be shown. */
const hasSegmentation = (method: string) =>
  Prisma.sql`EXISTS (SELECT 1 FROM "Segmentation" seg WHERE seg."solutionId" = t.id AND seg.method = ${method})`;

/** The chosen solutions in queue order, each with its segmentation of the queue's method; solutions without one are skipped. */
export async function selectSolutions(db: Db, selection: QueueSelection, context: SelectionContext): Promise<SelectedSolution[]> {
  const ids = await selectedSolutionIds(db, selection, context);
  if (ids.length === 0) return [];
  const segmentations = await db.segmentation.findMany({
    where: { solutionId: { in: ids }, method: context.segmentationMethod },
    select: { id: true, solutionId: true },
  });
  const segmentationOf = new Map(segmentations.map((s) => [s.solutionId, s.id]));
  return ids.filter((id) => segmentationOf.has(id)).map((solutionId) => ({ solutionId, segmentationId: segmentationOf.get(solutionId)! }));
}

async function selectedSolutionIds(db: Db, selection: QueueSelection, context: SelectionContext): Promise<string[]> {
  switch (selection.kind) {
    case "filter": {
      const filter = { ...selection.filter, datasetId: context.datasetId };
      const from = await plannedSolutionsFrom(db, filter);
      const rows = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
        SELECT t.id ${from} AND ${hasSegmentation(context.segmentationMethod)}
        ${listOrder(filter)}
        LIMIT ${selection.limit}`);
      return rows.map((r) => r.id);
    }
    case "disagreements": {
      const { annotateRunId, judgeRunId, labelRule } = context;
      if (!annotateRunId || !judgeRunId || !labelRule) return [];
      // The majority below is `majorityVerdict`'s: unparseable samples abstain, a
      // chunk whose samples all failed to parse has no verdict to disagree with,
      // and a tie follows the judge run's tie policy.
      const rows = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
        WITH votes AS (
          SELECT js."chunkId",
                 count(*) FILTER (WHERE js.verdict = 'Positive') AS positive,
                 count(*) FILTER (WHERE js.verdict = 'Negative') AS negative
          FROM "JudgeSample" js WHERE js."runId" = ${judgeRunId}
          GROUP BY js."chunkId"
        ), disagreeing AS (
          SELECT DISTINCT s."solutionId"
          FROM votes v
          JOIN "ChunkLabel" cl ON cl."chunkId" = v."chunkId" AND cl."runId" = ${annotateRunId}
                              AND cl.rule = ${labelRule.rule}::"LabelRule" AND cl."paramsKey" = ${labelRule.paramsKey}
          JOIN "Chunk" c ON c.id = v."chunkId"
          JOIN "Segmentation" s ON s.id = c."segmentationId" AND s.method = ${context.segmentationMethod}
          WHERE v.positive + v.negative > 0
            AND cl.label::text <> CASE WHEN v.positive > v.negative THEN 'Positive' WHEN v.negative > v.positive THEN 'Negative' ELSE ${context.judgeTiePolicy} END
        )
        SELECT t.id FROM "Solution" t JOIN disagreeing d ON d."solutionId" = t.id
        WHERE t."datasetId" = ${context.datasetId}
        ORDER BY t."createdAt", t.id
        LIMIT ${selection.limit}`);
      return rows.map((r) => r.id);
    }
    case "least-confident": {
      // An index range scan of (run, rule, parameters, lowest confidence, solution), stopped after `count` rows.
      const rows = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
        SELECT t.id
        FROM "SolutionLabelConfidence" lc JOIN "Solution" t ON t.id = lc."solutionId"
        WHERE lc."runId" = ${selection.annotateRunId} AND lc.rule = ${selection.rule.rule}::"LabelRule" AND lc."paramsKey" = ${selection.rule.paramsKey}
          AND lc."lowestConfidence" IS NOT NULL AND t."datasetId" = ${context.datasetId} AND ${hasSegmentation(context.segmentationMethod)}
        ORDER BY lc."lowestConfidence", lc."solutionId"
        LIMIT ${selection.count}`);
      return rows.map((r) => r.id);
    }
    case "random": {
      const covered = await coveredSolutions(db, selection.runId, context);
      return sampleSolutionIds(covered.map((c) => c.id), selection.size, selection.seed);
    }
    case "stratified": {
      const covered = await coveredSolutions(db, selection.runId, context);
      const candidates = covered.map((c) => ({ id: c.id, stratum: c.firstNegative >= 0 ? "negative" : "positive" }));
      return stratifiedSample(candidates, selection.perStratum, selection.seed).ids;
    }
  }
}

/**
 * Solutions a run finished that have a segmentation of the queue's method, with
 * the first chunk it found Negative (-1 = none): annotate and judge runs from
 * their per-solution stats, a benchmark run from its first-error predictions
 * (an unparseable prediction says nothing about the solution, so it is left out).
 */
function coveredSolutions(db: Db, runId: string, context: SelectionContext) {
  return db.$queryRaw<{ id: string; firstNegative: number }[]>(Prisma.sql`
    SELECT t.id, st."firstNegative"
    FROM "SolutionRunStat" st JOIN "Solution" t ON t.id = st."solutionId"
    WHERE st."runId" = ${runId} AND t."datasetId" = ${context.datasetId} AND ${hasSegmentation(context.segmentationMethod)}
    UNION ALL
    SELECT t.id, sp."predictedFirstError"
    FROM "SolutionPrediction" sp JOIN "Solution" t ON t.id = sp."solutionId"
    WHERE sp."runId" = ${runId} AND sp."predictedFirstError" IS NOT NULL AND t."datasetId" = ${context.datasetId}
      AND ${hasSegmentation(context.segmentationMethod)}
      AND NOT EXISTS (SELECT 1 FROM "SolutionRunStat" st WHERE st."runId" = ${runId} AND st."solutionId" = t.id)`);
}
