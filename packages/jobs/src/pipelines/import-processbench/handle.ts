import { createHash } from "node:crypto";
import { chunksFromParagraphs, InputError, parseProcessBenchFile, subsetFromId, type ProcessBenchRecord } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { isTerminal, markRunFinished, markRunStarted } from "../../runs/run-state";

const PROCESSBENCH_LICENSE = "Apache-2.0";

export interface ImportOptions {
  /** Records written per transaction: each batch is atomic and skipped if already stored. */
  batchSize?: number;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Writes a validated ProcessBench file as Dataset → Problems → Trajectories →
 * one "processbench-paragraphs" Segmentation with one Chunk per paragraph.
 *
 * Safe to re-run after a crash at any point: the dataset is keyed by the run,
 * trajectories by (dataset, external id), and each batch commits atomically,
 * so a retry writes exactly the records that are still missing.
 */
export async function runProcessBenchImport(db: Db, runId: string, options: ImportOptions = {}): Promise<void> {
  const batchSize = options.batchSize ?? 250;
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    include: { importFile: true },
  });
  if (isTerminal(run.status)) return;
  if (!run.importFile) {
    await markRunFinished(db, runId, "failed", "the uploaded file is no longer stored");
    return;
  }
  await markRunStarted(db, runId);

  let records: ProcessBenchRecord[];
  try {
    records = parseProcessBenchFile(Buffer.from(run.importFile.content).toString("utf8"), run.importFile.fileName).records;
  } catch (error) {
    if (error instanceof InputError) {
      await markRunFinished(db, runId, "failed", error.message);
      return;
    }
    throw error;
  }

  const config = run.config as { datasetName?: string };
  const dataset = await db.dataset.upsert({
    where: { importRunId: runId },
    create: {
      name: config.datasetName ?? run.importFile.fileName,
      source: "processbench",
      license: PROCESSBENCH_LICENSE,
      version: run.importFile.sha256.slice(0, 12),
      importRunId: runId,
      status: "importing",
    },
    update: {},
  });
  await db.run.update({ where: { id: runId }, data: { datasetId: dataset.id, unitsTotal: records.length } });

  const alreadyStored = new Set(
    (await db.trajectory.findMany({ where: { datasetId: dataset.id }, select: { externalId: true } })).map((t) => t.externalId),
  );
  const pending = records.filter((r) => !alreadyStored.has(r.id));

  for (let start = 0; start < pending.length; start += batchSize) {
    await writeBatch(db, dataset.id, pending.slice(start, start + batchSize));
    const stored = await db.trajectory.count({ where: { datasetId: dataset.id } });
    await db.run.update({ where: { id: runId }, data: { unitsDone: stored } });
  }

  await db.$transaction(async (tx) => {
    const stored = await tx.trajectory.count({ where: { datasetId: dataset.id } });
    await tx.dataset.update({ where: { id: dataset.id }, data: { status: "ready" } });
    await tx.run.update({ where: { id: runId }, data: { unitsDone: stored } });
    await markRunFinished(tx, runId, "completed");
    await tx.auditLog.create({
      data: {
        actorId: run.createdById,
        action: "import.completed",
        entityType: "Dataset",
        entityId: dataset.id,
        after: { runId, trajectories: stored },
      },
    });
  });
}

async function writeBatch(db: Db, datasetId: string, batch: ProcessBenchRecord[]): Promise<void> {
  await db.$transaction(async (tx) => {
    const problems = new Map(batch.map((r) => [sha256(r.problem), r.problem]));
    await tx.problem.createMany({
      data: [...problems].map(([textHash, text]) => ({ datasetId, textHash, text })),
      skipDuplicates: true,
    });
    const problemIds = new Map(
      (
        await tx.problem.findMany({
          where: { datasetId, textHash: { in: [...problems.keys()] } },
          select: { id: true, textHash: true },
        })
      ).map((p) => [p.textHash, p.id]),
    );

    const solutions = batch.map((record) => ({ record, ...chunksFromParagraphs(record.steps) }));
    const trajectories = await tx.trajectory.createManyAndReturn({
      data: solutions.map(({ record, text }) => ({
        datasetId,
        problemId: problemIds.get(sha256(record.problem))!,
        externalId: record.id,
        subset: subsetFromId(record.id),
        generator: record.generator,
        text,
        finalAnswerCorrect: record.final_answer_correct,
        sourceFirstErrorIndex: record.label,
      })),
      select: { id: true, externalId: true },
      skipDuplicates: true,
    });
    const trajectoryIds = new Map(trajectories.map((t) => [t.externalId, t.id]));

    const segmentations = await tx.segmentation.createManyAndReturn({
      data: trajectories.map((t) => ({ trajectoryId: t.id, method: "processbench-paragraphs" })),
      select: { id: true, trajectoryId: true },
    });
    const segmentationByTrajectory = new Map(segmentations.map((s) => [s.trajectoryId, s.id]));

    await tx.chunk.createMany({
      data: solutions.flatMap(({ record, chunks }) => {
        const trajectoryId = trajectoryIds.get(record.id);
        if (!trajectoryId) return [];
        const segmentationId = segmentationByTrajectory.get(trajectoryId)!;
        return chunks.map((c) => ({ segmentationId, index: c.index, text: c.text, startOffset: c.startOffset, endOffset: c.endOffset }));
      }),
    });
  });
}
