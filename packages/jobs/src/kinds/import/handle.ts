import { hasHumanWork, InputError, type ImportedSolution, type ImportReportCounts } from "@stepwiser/core";
import { humanWorkCounts, type AuditImportSummary, type Db, type HumanWork, type Prisma } from "@stepwiser/db";
import { HumanWorkRefusal, replacingSolutions } from "../../human-work/guard";
import type { JobQueue } from "../../queue/queue";
import type { OtherRuns } from "../../runs/run-kind";
import { readConfigOrFailRun, readSummary, tryReadStoredConfig } from "../../runs/stored-config";
import { fileImportSummarySchema } from "./summary";
import { runBatchOutputImport } from "./batch-output";
import { storedFileOutcomes } from "./stored-outcomes";
import { isTerminal, markRunFinished, markRunStarted } from "../../runs/run-state";
import { importedLabelsAuthor } from "./labels-author";
import { BATCH_OUTPUT_FORMAT, FORMAT_FACTS, importRunConfigSchema, type ImportOptions } from "./options";
import { newHumanWorkLedger, SequentialIds, writeSolutions, type BatchCounts } from "./write-solutions";
import { writeReportEntries, type ReportEntry } from "./report-entries";
import { ImportReportTally } from "./report-tally";
import { recordAudit } from "@stepwiser/db";

export interface ImportRunOptions {
  /** Solutions written per statement batch (progress is reported after each). */
  batchSize?: number;
  /** Where a batch-output import queues its offline run once the samples are stored (without it, the caller runs it). */
  queue?: JobQueue;
  /** How it reads the offline run a batch output answers. */
  runs: OtherRuns;
}

/** An import may run for hours on a multi-GB file: its one transaction must not time out. */
const IMPORT_TRANSACTION_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** What an import wrote; the same shape its audit entry records. */
export type ImportSummary = AuditImportSummary;

/**
 * Executes an import run: streams the stored file through the format's reader
 * and writes every record in ONE transaction, so a failure anywhere (or a
 * crash) leaves the database exactly as it was: all or nothing per file. Under
 * the `fail` policy the first unreadable record is such a failure; under
 * `skip` it is left out and listed in the import's report (ImportReportEntry,
 * written in the same transaction), and the import fails only when the share
 * of invalid records, known once the whole file is read, is above the bound.
 * A broken layout fails under both. Ignored records (nothing to import, as the
 * dataset allows) are listed under both. Under `replace`, a stored solution
 * holding human work (human labels, annotation items, assignments,
 * adjudications) refuses the whole import (HumanWorkRefusal: how many of each,
 * where; the counts also in the failed run's summary) unless the options say
 * `deleteHumanLabels`; then that work is deleted and its ids audited
 * ("human_work.deleted"). A retried job starts over; an
 * advisory lock on the run keeps a second worker from importing the same run
 * while the first is still alive.
 */
export async function executeImport(db: Db, runId: string, options: ImportRunOptions): Promise<void> {
  const batchSize = options.batchSize ?? 500;
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { inputFile: true } });
  if (isTerminal(run.status)) return;
  const stored = await readConfigOrFailRun(db, run, importRunConfigSchema, "invalid import options");
  if (!stored) return;
  if (stored.format === BATCH_OUTPUT_FORMAT) return runBatchOutputImport(db, run, stored, options.queue, options.runs);
  const file = run.inputFile;
  if (!file || !file.completedAt) {
    await markRunFinished(db, runId, "failed", "the uploaded file is no longer stored");
    return;
  }
  const config: ImportOptions = stored.options;
  await markRunStarted(db, runId);
  const startedAt = Date.now();
  await db.run.update({ where: { id: runId }, data: { unitsDone: 0, unitsFailed: 0 } });

  const facts = FORMAT_FACTS[config.format];
  let lastProgress: ProgressReport | null = null;
  // Set when a skip import fails on its invalid share: the counts are kept on the failed run to say why.
  let refusedReport: ImportReportCounts | null = null;
  try {
    await db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`import:${runId}`}))`;
        // Text-search entries of new rows wait in the GIN pending list (still searched) and are merged into the
        // index later in the background, instead of in many merges during the import.
        await tx.$executeRawUnsafe(`SET LOCAL gin_pending_list_limit = '1GB'`);
        const current = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
        if (isTerminal(current.status)) return;

        const identical = config.datasetId ? null : await identicalImport(tx, runId, file.sha256!, config);
        if (identical && config.duplicates === "skip") {
          await finish(tx, { runId, actorId: run.createdById, datasetId: identical.datasetId, summary: { ...emptySummary(config.format), duplicateOfRunId: identical.runId }, created: false });
          return;
        }
        const existingDatasetId = config.datasetId ?? identical?.datasetId;
        const datasetId = existingDatasetId ?? (await createDataset(tx, runId, config, file.fileName, file.sha256!));
        if (config.datasetId && !(await tx.dataset.findUnique({ where: { id: config.datasetId }, select: { id: true } }))) {
          throw new InputError(`dataset ${config.datasetId} does not exist`, { field: "datasetId" });
        }
        const target = {
          datasetId,
          runId,
          segmentationMethod: facts.segmentationMethod,
          duplicates: config.duplicates,
          labelsAuthorId: config.format === "prm800k" || config.mapping?.labelKind === "rating" ? await importedLabelsAuthor(tx) : "",
          ids: new SequentialIds(),
          problemIds: new Map<string, string>(),
          writtenInThisImport: existingDatasetId ? null : { ids: new Set<string>(), hashes: new Set<string>() },
          deleteHumanLabels: config.deleteHumanLabels,
          humanWork: newHumanWorkLedger(),
        };

        const summary = emptySummary(config.format);
        const tally = new ImportReportTally(file.fileName, config.onInvalid, config.maxInvalidShare);
        let bytesRead = 0;
        let batch: ImportedSolution[] = [];
        // One batch is written while the next is read and parsed: the database and this process work at the same time.
        let writing: Promise<void> = Promise.resolve();
        const write = async (solutions: ImportedSolution[], reportEntries: ReportEntry[], recordsSoFar: number) => {
          await writeReportEntries(tx, runId, target.ids, reportEntries);
          if (solutions.length > 0) add(summary, await writeSolutions(tx, target, solutions));
          // Progress goes through another connection (the transaction's rows stay invisible until it commits),
          // sparingly: see progressDue.
          const report = { at: Date.now(), tenthRead: Math.floor((10 * bytesRead) / Math.max(1, Number(file.sizeBytes))) };
          if (progressDue(lastProgress, report, startedAt)) {
            lastProgress = report;
            await db.run.update({ where: { id: runId }, data: { unitsDone: recordsSoFar, unitsTotal: estimateTotal(recordsSoFar, file.sizeBytes, bytesRead) } });
          }
        };
        const flush = async () => {
          await writing;
          writing = write(batch, tally.takeEntries(), summary.records);
          writing.catch(() => {}); // surfaces at the next await; this only keeps it from being reported as unhandled meanwhile
          batch = [];
        };
        for await (const outcome of storedFileOutcomes(db, file, config, (n) => (bytesRead += n))) {
          const solution = tally.take(outcome);
          if (solution) {
            batch.push(solution);
            summary.records += 1;
          }
          if (batch.length >= batchSize || tally.pendingEntries >= batchSize) await flush();
        }
        if (batch.length > 0 || tally.pendingEntries > 0) await flush();
        await writing;
        const refused = target.humanWork.refused;
        if (refused) {
          // Refused for the human work it would delete: the counts are kept on the failed run, as for too many invalid records.
          refusedReport = tally.counts;
          throw new HumanWorkRefusal(replacingSolutions(refused.solutions), refused, { file: file.fileName });
        }
        const tooManyInvalid = tally.shareError();
        if (tooManyInvalid) {
          refusedReport = tally.counts;
          throw tooManyInvalid;
        }
        if (summary.records === 0) throw new InputError("the file holds no records", { file: file.fileName, line: 1 });
        summary.report = tally.counts;
        const deleted = target.humanWork.deleted;
        if (hasHumanWork(deleted)) summary.humanWorkDeleted = humanWorkCounts(deleted);
        await finish(tx, { runId, actorId: run.createdById, datasetId, summary, created: !config.datasetId && !identical, humanWorkDeleted: deleted });
      },
      { timeout: IMPORT_TRANSACTION_TIMEOUT_MS, maxWait: 60_000 },
    );
  } catch (error) {
    if (error instanceof InputError || error instanceof HumanWorkRefusal) {
      if (refusedReport) {
        const refusedWork = error instanceof HumanWorkRefusal ? { humanWorkRefused: error.work } : {};
        const summary: ImportSummary = { ...emptySummary(config.format), report: refusedReport, ...refusedWork };
        await db.run.update({ where: { id: runId }, data: { summary: summary as unknown as Prisma.InputJsonValue } });
      }
      await markRunFinished(db, runId, "failed", error.message);
      await recordAudit(db, run.createdById, { action: "import.failed", entityType: "Run", entityId: runId, after: { error: error.message } });
      return;
    }
    throw error;
  }
}

function emptySummary(format: string): ImportSummary {
  return { format, records: 0, written: 0, skipped: 0, replaced: 0, chunks: 0, humanLabels: 0, chunkLabels: 0 };
}

function add(summary: ImportSummary, counts: BatchCounts): void {
  summary.written += counts.written;
  summary.skipped += counts.skipped;
  summary.replaced += counts.replaced;
  summary.chunks += counts.chunks;
  summary.humanLabels += counts.humanLabels;
  summary.chunkLabels += counts.chunkLabels;
}

interface ProgressReport {
  at: number;
  /** Tenths of the stored file read by then. */
  tenthRead: number;
}

/**
 * Whether to report progress now: after the first batch, then at least 500 ms
 * apart and only once a quarter of the time the import has run so far has
 * passed, or another tenth of the file has been read. The gaps grow with the
 * import, so it reports a few dozen times however long it runs (about 15 on
 * the benchmark's 20-second file, 40 to 50 in an hour), yet a small file still
 * shows its count moving and a large one moves at least every tenth.
 *
 * The bound matters: each update (through the other connection) leaves a
 * version of the Run row that this import's open transaction keeps from being
 * cleaned up, and every later foreign-key check against the run
 * (Segmentation.runId per record, ChunkLabel.runId and ChunkValue.runId per
 * chunk) steps over all of them, each slow to check because this transaction's
 * key-share lock on the row makes its xmax a multixact. An update every 500 ms
 * made the number of versions, and so the cost of each check, grow with the
 * import's length: quadratic overall. 200 versions early in the benchmark's
 * labelled import (400,000 chunks) nearly tripled the database's work.
 */
function progressDue(last: ProgressReport | null, now: ProgressReport, startedAt: number): boolean {
  if (!last) return true;
  const since = now.at - last.at;
  return since >= 500 && (since >= (now.at - startedAt) / 4 || now.tenthRead > last.tenthRead);
}

/** Records in the whole file, extrapolated from the bytes read so far (exact once the file is read). */
function estimateTotal(records: number, sizeBytes: bigint, bytesRead: number): number {
  if (bytesRead <= 0) return records;
  return Math.max(records, Math.round((records * Number(sizeBytes)) / bytesRead));
}

/**
 * The same bytes imported with the same options before, into a dataset that still exists. A dataset name
 * given for this import must be that dataset's: a name names a new dataset, so under another name the file
 * is imported again, into a new dataset of its own.
 */
async function identicalImport(tx: Prisma.TransactionClient, runId: string, sha256: string, config: ImportOptions): Promise<{ runId: string; datasetId: string } | null> {
  const earlier = await tx.run.findMany({
    where: {
      kind: "import",
      status: "completed",
      id: { not: runId },
      inputFile: { sha256 },
      datasetId: { not: null },
      ...(config.datasetName !== undefined ? { dataset: { name: config.datasetName } } : {}),
    },
    select: { id: true, datasetId: true, config: true, summary: true },
    orderBy: { createdAt: "asc" },
  });
  const optionsOf = (run: { id: string; config: unknown }) => {
    const stored = tryReadStoredConfig({ ...run, kind: "import" }, importRunConfigSchema);
    return stored && "options" in stored ? stored.options : null;
  };
  const wanted = JSON.stringify(comparable(config));
  const match = earlier.find((r) => {
    // An earlier import that left invalid records out stands for this one only if this one would have left them out too.
    // A run that was itself a duplicate wrote nothing and reports nothing: the import it points to is among the earlier ones.
    const earlierSummary = readSummary(fileImportSummarySchema, r.summary);
    if (earlierSummary?.duplicateOfRunId) return false;
    const report = earlierSummary?.report;
    if (report && report.invalid > 0 && (config.onInvalid === "fail" || report.invalid / report.records > config.maxInvalidShare)) return false;
    const options = optionsOf(r);
    return options !== null && JSON.stringify(comparable(options)) === wanted;
  });
  return match ? { runId: match.id, datasetId: match.datasetId! } : null;
}

/**
 * Options that change what an import writes (the dataset name and duplicate policy do not; nor does the
 * policy for invalid records when there were none, which the caller checks).
 */
function comparable(options: ImportOptions): unknown {
  return { format: options.format, subset: options.subset ?? null, generator: options.generator ?? null, mapping: options.mapping ?? null };
}

async function createDataset(tx: Prisma.TransactionClient, runId: string, config: ImportOptions, fileName: string, sha256: string): Promise<string> {
  const facts = FORMAT_FACTS[config.format];
  const dataset = await tx.dataset.create({
    data: {
      name: config.datasetName ?? `${facts.label} ${fileName}`,
      source: config.format,
      license: facts.license,
      version: sha256.slice(0, 12),
      importRunId: runId,
      status: "ready",
    },
    select: { id: true },
  });
  return dataset.id;
}

async function finish(
  tx: Prisma.TransactionClient,
  {
    runId,
    actorId,
    datasetId,
    summary,
    created,
    humanWorkDeleted,
  }: { runId: string; actorId: string | null; datasetId: string; summary: ImportSummary; created: boolean; humanWorkDeleted?: HumanWork },
): Promise<void> {
  await tx.run.update({
    where: { id: runId },
    data: { datasetId, unitsDone: summary.records, unitsTotal: summary.records, summary: summary as unknown as Prisma.InputJsonValue },
  });
  await markRunFinished(tx, runId, "completed");
  await recordAudit(tx, actorId, { action: "import.completed", entityType: "Dataset", entityId: datasetId, after: { runId, createdDataset: created, ...summary } });
  if (humanWorkDeleted && hasHumanWork(humanWorkDeleted)) {
    const { ids, solutionIds, ...counts } = humanWorkDeleted;
    await recordAudit(tx, actorId, {
      action: "human_work.deleted",
      entityType: "Dataset",
      entityId: datasetId,
      before: { ...humanWorkCounts(counts), ...ids, solutionIds },
      after: { cause: "import.replace", runId },
    });
  }
}
