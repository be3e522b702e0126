import { InputError } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import { z } from "zod";
import { storeFile } from "../../files/stored-files";
import { QUEUES, type JobQueue } from "../../queue/queue";
import { readConfigOrFailRun } from "../../runs/stored-config";
import { exportConfigSchema } from "./export-spec";
import { isTerminal, markRunFinished, markRunStarted } from "../../runs/run-state";
import { batchRequestLines } from "../../batch/batch-requests";
import type { OtherRuns } from "../../runs/run-kind";
import { BATCH_RUN_KINDS } from "../../batch/custom-id";
import { exportSpecSchema, sourceRunId, type ExportSpec, type ExportSpecInput } from "./export-spec";
import { chunkLabelsLines, predictionLines } from "./labels-lines";
import { checkSegmentationSftSource, checkSelectionSource, exportSegmentationSft, exportSelection } from "./sft";
import { exportTrainingSet, parseTrainingSetExportOptions } from "./training-set";
import { assertConfidencesStored, countRunLabels } from "./training-set/labelled-chunks";
import { recordAudit } from "@stepwiser/db";

export const exportJobSchema = z.object({ runId: z.string().min(1) });

/** Lines are gathered into pieces of about this size before they are stored. */
const PIECE_BYTES = 1024 * 1024;

async function* jsonLinePieces(lines: AsyncIterable<unknown>, onLine?: () => void): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: string[] = [];
  let size = 0;
  for await (const line of lines) {
    const text = `${JSON.stringify(line)}\n`;
    pending.push(text);
    size += text.length;
    onLine?.();
    if (size >= PIECE_BYTES) {
      yield encoder.encode(pending.join(""));
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield encoder.encode(pending.join(""));
}

export interface ExportRequest {
  spec: ExportSpecInput;
  createdById?: string | null;
}

/** Checks the export's options and its source run (read through `runs`), records a queued export run and enqueues it. */
export async function queueExport(db: Db, queue: JobQueue, request: ExportRequest, runs: OtherRuns) {
  const parsed = exportSpecSchema.safeParse(request.spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { field: issue.path.map(String).join(".") || undefined });
  }
  const spec = parsed.data;
  const source = await db.run.findUnique({ where: { id: sourceRunId(spec) }, select: { id: true, kind: true, datasetId: true } });
  if (!source) throw new InputError(`run ${sourceRunId(spec)} does not exist`, { field: spec.kind === "training-set" ? "annotateRunId" : "runId" });
  if (spec.kind === "predictions" && source.kind !== "benchmark" && source.kind !== "judge") {
    throw new InputError(`run ${source.id} is a ${source.kind} run; predictions come from benchmark or judge runs`, { field: "runId" });
  }
  if (spec.kind === "batch-requests" && !(BATCH_RUN_KINDS as readonly string[]).includes(source.kind)) {
    throw new InputError(`run ${source.id} is a ${source.kind} run; batch execution supports ${BATCH_RUN_KINDS.join(" and ")} runs`, { field: "runId" });
  }
  // What the job would only find out later is refused here, so a form or the CLI shows the mistake instead of a failed run.
  if (spec.kind === "training-set") {
    parseTrainingSetExportOptions(spec);
    await countRunLabels(db, source.id, spec.labelRule);
    await assertConfidencesStored(db, source.id, spec.labelRule, spec.minConfidence);
  }
  if (spec.kind === "segmentation-sft") await checkSegmentationSftSource(db, spec, runs);
  if (spec.kind === "selection") await checkSelectionSource(db, spec, runs);
  if (spec.kind === "labels") {
    const stored =
      (await db.chunkLabel.findFirst({ where: { runId: source.id }, select: { id: true } })) ?? (await db.chunkValue.findFirst({ where: { runId: source.id }, select: { id: true } }));
    if (!stored) throw new InputError(`run ${source.id} (${source.kind}) has no chunk labels or Q-values to export`, { field: "runId" });
  }
  const run = await db.$transaction(async (tx) => {
    const created = await tx.run.create({
      data: { kind: "export", config: { export: spec } as Prisma.InputJsonValue, datasetId: source.datasetId, createdById: request.createdById ?? null, spendRecordedAt: new Date() },
    });
    await recordAudit(tx, request.createdById, { action: "export.submitted", entityType: "Run", entityId: created.id, after: { kind: spec.kind, sourceRunId: source.id } });
    return created;
  });
  await queue.send(QUEUES.export, { runId: run.id }, { singletonKey: run.id });
  return run;
}

/**
 * Executes an export run: writes its files into the database (so the web app
 * and the CLI can fetch them from any machine). A retried run first removes
 * what an interrupted attempt stored, so it ends with exactly one copy.
 */
export async function executeExport(db: Db, runId: string, runs: OtherRuns): Promise<void> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  if (isTerminal(run.status)) return;
  const stored = await readConfigOrFailRun(db, run, exportConfigSchema, "invalid export options");
  if (!stored) return;
  const spec = stored.export;
  await markRunStarted(db, runId);
  await db.storedFile.deleteMany({ where: { producedByRunId: runId } });
  const owner = { purpose: "export" as const, createdById: run.createdById, producedByRunId: runId };
  let done = 0;
  let lastProgress = 0;
  const progress = async (total?: number) => {
    if (Date.now() - lastProgress < 500) return;
    lastProgress = Date.now();
    await db.run.update({ where: { id: runId }, data: { unitsDone: done, ...(total !== undefined ? { unitsTotal: total } : {}) } });
  };
  try {
    let report: unknown = null;
    if (spec.kind === "segmentation-sft" || spec.kind === "selection") {
      const result = await (spec.kind === "selection" ? exportSelection : exportSegmentationSft)(db, spec, runs);
      for (const file of result.files) await storeFile(db, { ...owner, fileName: file.fileName, contentType: file.contentType }, [file.content]);
      done = (result.report.counts as { rows: number }).rows;
      report = result.report;
    } else if (spec.kind === "training-set") {
      const result = await exportTrainingSet(db, spec, runs, (d, total) => {
        done = d;
        void progress(total);
      });
      for (const file of result.files) await storeFile(db, { ...owner, fileName: file.fileName, contentType: file.contentType }, [file.content]);
      report = result.report;
    } else if (spec.kind === "labels") {
      const source = await db.run.findUniqueOrThrow({ where: { id: spec.runId }, select: { kind: true } });
      await storeFile(db, { ...owner, fileName: `labels-${spec.runId}.jsonl`, contentType: "application/x-ndjson" }, jsonLinePieces(chunkLabelsLines(db, spec.runId), () => (done += 1)));
      report = { sourceKind: source.kind, chunks: done };
    } else if (spec.kind === "batch-requests") {
      let skippedUnits = 0;
      const lines = batchRequestLines(db, spec.runId, runs.unitKinds, { onSkippedUnit: () => (skippedUnits += 1) });
      await storeFile(db, { ...owner, fileName: `batch-requests-${spec.runId}.jsonl`, contentType: "application/x-ndjson" }, jsonLinePieces(lines, () => (done += 1)));
      report = { requests: done, skippedUnits };
    } else {
      const source = await db.run.findUniqueOrThrow({ where: { id: spec.runId }, select: { kind: true } });
      const lines = predictionLines(db, { id: spec.runId, kind: source.kind === "benchmark" ? "benchmark" : "judge" });
      await storeFile(db, { ...owner, fileName: `predictions-${spec.runId}.jsonl`, contentType: "application/x-ndjson" }, jsonLinePieces(lines, () => (done += 1)));
      report = { sourceKind: source.kind, solutions: done };
    }
    const files = await db.storedFile.findMany({ where: { producedByRunId: runId }, select: { id: true, fileName: true, sizeBytes: true, sha256: true }, orderBy: { fileName: "asc" } });
    await db.$transaction(async (tx) => {
      await tx.run.update({
        where: { id: runId },
        data: {
          unitsDone: done,
          unitsTotal: done,
          summary: { kind: spec.kind, files: files.map((f) => ({ ...f, sizeBytes: Number(f.sizeBytes) })), report } as Prisma.InputJsonValue,
        },
      });
      await markRunFinished(tx, runId, "completed");
    });
  } catch (error) {
    if (error instanceof InputError) {
      await db.storedFile.deleteMany({ where: { producedByRunId: runId } });
      await markRunFinished(db, runId, "failed", error.message);
      return;
    }
    throw error;
  }
}

export type { ExportSpec };
