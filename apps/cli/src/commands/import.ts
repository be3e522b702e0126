import { createReadStream } from "node:fs";
import path from "node:path";
import { countDatasetSolutions } from "@stepwiser/api/services/dataset";
import { getRunState } from "@stepwiser/api/services/run";
import { actingCreatorId } from "@stepwiser/api/services/user";
import { previewOutcomes, readImportOutcomes, type ImportFormat, type ImportOutcome, type ImportReadOptions } from "@stepwiser/core";
import { createDb } from "@stepwiser/db";
import { openLocalDatabase, resolveDataDir } from "@stepwiser/db/local";
import {
  connectJobQueue,
  ImportReportTally,
  isTerminal,
  localParquetOutcomes,
  startWorker,
  submitImportFromContent,
  type ImportOptionsInput,
  readRunSummary,
  type FileImportSummary,
} from "@stepwiser/jobs";
import { IN_COMMAND_WORKER } from "../in-command-worker";
import { migrateOnce } from "../migrate-once";
import { repoRoot } from "../paths";
import { ProgressLine, ProgressMeter } from "../progress";
import { checkReadable, importFlagsOf } from "./import-flags";
import { importSummaryLines } from "./import-summary";
import { checkFileFormat } from "../input/format-check";
import { nothingImported } from "./import-duplicate";

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Bytes of a file named on the command line, streamed. */
function fileBytes(file: string): AsyncIterable<Uint8Array> {
  return createReadStream(file, { highWaterMark: 1024 * 1024 });
}

/** A local file's records as outcomes: Parquet by row group (random access), the text formats streamed. */
function localOutcomes(format: ImportFormat, file: string, options: ImportReadOptions): AsyncIterable<ImportOutcome> {
  return format === "parquet" ? localParquetOutcomes(file, options) : readImportOutcomes(format, fileBytes(file), options);
}

/**
 * `stepwiser import <format> <file>...`: one import run (a job) per file. Each
 * file is read through once here first, streaming, so a file the import would
 * refuse is reported (file, line, field) before anything is stored: under
 * `--on-invalid fail` (default) its first bad record, under `skip` a broken
 * layout or a share of invalid records above `--max-invalid-share`. The job
 * then reads the stored copy and writes it in one transaction. Under
 * `--duplicates replace` an import that would delete human work on the
 * solutions it replaces fails, naming how much and where, and stores nothing,
 * unless `--delete-human-labels` is given.
 */
export async function importCommand(args: string[]): Promise<void> {
  const flags = importFlagsOf(args);
  const { format, mapping, policy } = flags;
  const values = { name: flags.name, dataset: flags.dataset, subset: flags.subset, generator: flags.generator, duplicates: flags.duplicates, "delete-human-labels": flags.deleteHumanLabels, preview: flags.preview, detach: flags.detach };

  const files = await Promise.all(flags.files.map(checkReadable));
  for (const [i, file] of files.entries()) await checkFileFormat(format, file, flags.files[i]!);
  const readOptions = (file: string): ImportReadOptions => ({ file: path.basename(file), subset: values.subset, generator: values.generator, mapping });

  if (values.preview) {
    const previews = [];
    for (const file of files) previews.push({ file: path.basename(file), ...(await previewOutcomes(localOutcomes(format as ImportFormat, file, readOptions(file)))) });
    process.stdout.write(`${JSON.stringify({ previews })}\n`);
    return;
  }

  // Validate every file before touching the database, by the rules the import applies: a file it would refuse is
  // rejected here and nothing is stored.
  const counted: number[] = [];
  for (const file of files) {
    const tally = new ImportReportTally(path.basename(file), policy.onInvalid, policy.maxInvalidShare);
    for await (const outcome of localOutcomes(format as ImportFormat, file, readOptions(file))) tally.take(outcome);
    const tooManyInvalid = tally.shareError();
    if (tooManyInvalid) throw tooManyInvalid;
    const { readable, invalid, ignored } = tally.counts;
    log(`${path.basename(file)}: ${readable} valid records${invalid > 0 ? `, ${invalid} invalid (to be skipped)` : ""}${ignored > 0 ? `, ${ignored} ignored` : ""}`);
    counted.push(readable);
  }

  const database = await openLocalDatabase({ dataDir: resolveDataDir(repoRoot), log: () => {} });
  try {
    await migrateOnce(database.url);
    const db = createDb(database.url, { poolSize: 4 });
    const createdById = await actingCreatorId({ db });
    const queue = await connectJobQueue(database.url);
    const runs: string[] = [];
    try {
      for (const [i, file] of files.entries()) {
        const options: ImportOptionsInput = {
          format: format as ImportFormat,
          datasetName: values.name,
          datasetId: values.dataset,
          subset: values.subset,
          generator: values.generator,
          mapping,
          duplicates: values.duplicates as ImportOptionsInput["duplicates"],
          ...(values["delete-human-labels"] ? { deleteHumanLabels: true } : {}),
          onInvalid: policy.onInvalid,
          ...(policy.onInvalid === "skip" ? { maxInvalidShare: policy.maxInvalidShare } : {}),
        };
        const run = await submitImportFromContent(db, queue, { fileName: path.basename(file), content: fileBytes(file), options, expectedRecords: counted[i], createdById });
        log(`queued import run ${run.id}: ${path.basename(file)} (${counted[i]} records)`);
        runs.push(run.id);
      }
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }

    if (values.detach) {
      process.stdout.write(`${JSON.stringify({ runs: runs.map((id) => ({ runId: id, status: "queued" })) })}\n`);
      await db.$disconnect();
      return;
    }

    // Work the queue in this process too, so the command also completes when no worker is running.
    const worker = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: IN_COMMAND_WORKER });
    const results = [];
    try {
      for (const [i, runId] of runs.entries()) {
        const progress = new ProgressLine(process.stderr);
        const meter = new ProgressMeter("records");
        for (;;) {
          const run = await getRunState({ db, input: { id: runId } });
          const ended = isTerminal(run.status);
          // The job's total is an estimate it revises as it reads; the records counted here before submitting are exact.
          const total = ended ? run.unitsTotal : Math.max(run.unitsTotal, counted[i] ?? 0);
          const line = `run ${runId}: ${run.status} ${meter.format(run.unitsDone, total, ended)}`;
          if (ended) progress.finish(line);
          else progress.update(line, `${run.status} ${run.unitsDone}`);
          if (ended) {
            const solutions = run.datasetId ? await countDatasetSolutions({ db, input: { datasetId: run.datasetId } }) : 0;
            const read = readRunSummary({ kind: "import", summary: run.summary });
            // A file import's counts (a failed one may have none).
            const summary: Partial<FileImportSummary> = read && "records" in read ? read : {};
            if (summary.report) {
              const imported = run.status === "completed" ? { written: summary.written ?? 0, skipped: summary.skipped ?? 0, replaced: summary.replaced ?? 0 } : null;
              for (const line of importSummaryLines(path.basename(files[i]!), runId, imported, summary.report)) log(line);
            }
            const nothing = run.status === "completed" ? await nothingImported(db, path.basename(files[i]!), runId, summary) : undefined;
            if (nothing) log(nothing.notice);
            results.push({
              runId,
              status: run.status,
              datasetId: run.datasetId,
              solutions,
              written: summary.written ?? 0,
              skipped: summary.skipped ?? 0,
              replaced: summary.replaced ?? 0,
              chunks: summary.chunks ?? 0,
              ...(summary.duplicateOfRunId ? { duplicateOfRunId: summary.duplicateOfRunId } : {}),
              ...(nothing ? { notice: nothing.notice, ...(nothing.duplicateOf ? { duplicateOf: nothing.duplicateOf } : {}) } : {}),
              ...(summary.report ? { report: summary.report } : {}),
              error: run.error,
            });
            break;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } finally {
      await worker.stop();
      await db.$disconnect();
    }
    process.stdout.write(`${JSON.stringify({ runs: results, solutions: results.reduce((n, r) => n + r.solutions, 0) })}\n`);
    if (results.some((r) => r.status !== "completed")) process.exitCode = 1;
  } finally {
    await database.release();
  }
}
