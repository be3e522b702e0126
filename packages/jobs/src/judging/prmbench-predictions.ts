import { stepLabelsFromFirstError, stepLabelsFromVerdicts, type PrmbenchItem, type StepLabelReading } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { votesOfSamples } from "./protocol-judge";

const PAGE = 200;

/** What a PRMBench reading needs of a judge or benchmark run. */
export interface PrmbenchRunScope {
  runId: string;
  datasetId: string;
  segmentationMethod: string;
  protocol: string;
  tiePolicy: "Negative" | "Positive";
}

/** One item of a run on a PRMBench dataset: its gold (from the import) and, once judged, the reading of the run's output as step labels. */
export interface PrmbenchRunItem {
  item: PrmbenchItem;
  /** null: the run has not judged it (a limit, or a unit not done). */
  reading: StepLabelReading | null;
}

function prmbenchMetadata(metadata: unknown): { item: string; classification: string; error_steps: number[] } | null {
  if (metadata === null || typeof metadata !== "object") return null;
  const facts = (metadata as { prmbench?: unknown }).prmbench;
  if (facts === null || typeof facts !== "object") return null;
  const { item, classification, error_steps } = facts as Record<string, unknown>;
  if (typeof item !== "string" || typeof classification !== "string" || !Array.isArray(error_steps)) return null;
  return { item, classification, error_steps: error_steps.filter((s): s is number => typeof s === "number") };
}

/**
 * The items of a run's PRMBench dataset in import order, each with the run's output read as
 * step labels (packages/core/src/prmbench/predicted-labels.ts): the processbench-critic's first
 * error, or every other protocol's majority verdict per step (the run's tie policy).
 */
export async function* prmbenchRunItems(db: Db, scope: PrmbenchRunScope): AsyncGenerator<PrmbenchRunItem> {
  for (let skip = 0; ; skip += PAGE) {
    const page = await db.segmentation.findMany({
      where: { method: scope.segmentationMethod, solution: { datasetId: scope.datasetId } },
      orderBy: [{ solution: { createdAt: "asc" } }, { solutionId: "asc" }],
      skip,
      take: PAGE,
      select: {
        solutionId: true,
        chunks: { orderBy: { index: "asc" }, select: { id: true, text: true } },
        solution: { select: { externalId: true, metadata: true, problem: { select: { text: true } } } },
      },
    });
    const solutionIds = page.map((s) => s.solutionId);
    const critic = scope.protocol === "processbench-critic";
    const predictions = critic
      ? new Map((await db.solutionPrediction.findMany({ where: { runId: scope.runId, solutionId: { in: solutionIds } }, select: { solutionId: true, predictedFirstError: true } })).map((p) => [p.solutionId, p.predictedFirstError]))
      : null;
    const samples = critic
      ? []
      : await db.judgeSample.findMany({ where: { runId: scope.runId, chunk: { segmentation: { solutionId: { in: solutionIds } } } }, select: { chunkId: true, verdict: true, score: true } });
    for (const segmentation of page) {
      const facts = prmbenchMetadata(segmentation.solution.metadata);
      if (!facts) continue;
      const item: PrmbenchItem = {
        id: facts.item,
        classification: facts.classification,
        question: segmentation.solution.problem.text,
        steps: segmentation.chunks.map((c) => c.text),
        errorSteps: facts.error_steps,
      };
      let reading: StepLabelReading | null = null;
      if (predictions) {
        if (predictions.has(segmentation.solutionId)) reading = stepLabelsFromFirstError(predictions.get(segmentation.solutionId)!, segmentation.chunks.length);
      } else {
        const ids = new Set(segmentation.chunks.map((c) => c.id));
        const own = samples.filter((s) => ids.has(s.chunkId));
        if (own.length > 0) reading = stepLabelsFromVerdicts(votesOfSamples(segmentation.chunks, own, scope.tiePolicy).votes);
      }
      yield { item, reading };
    }
    if (page.length < PAGE) return;
  }
}

/** `prmbench score`'s predictions from a run: `{ id, labels }` per item read; items that are invalid or not judged are left out. */
export async function* prmbenchPredictionLines(db: Db, scope: PrmbenchRunScope): AsyncGenerator<{ id: string; labels: boolean[] }> {
  for await (const { item, reading } of prmbenchRunItems(db, scope)) if (reading && "labels" in reading) yield { id: item.id, labels: reading.labels };
}
