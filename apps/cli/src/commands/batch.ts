import { createReadStream } from "node:fs";
import path from "node:path";
import { listExportFiles } from "@stepwiser/api/services/export";
import { openStoredFile } from "@stepwiser/api/services/file";
import { getRunState } from "@stepwiser/api/services/run";
import { actingCreatorId } from "@stepwiser/api/services/user";
import { InputError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { batchExportReportSchema, connectJobQueue, exportSummarySchema, isTerminal, MAX_IMPORT_FILE_BYTES, readRunSummary, readSummary, startWorker, storeFile, submitBatchOutputImport, submitExport, type BatchOutputImportSummary } from "@stepwiser/jobs";
import { IN_COMMAND_WORKER } from "../in-command-worker";
import { closeLineOutput, lineOutput, readableFile, writeBytes } from "../input/line-files";
import { UsageError } from "../usage-error";
import { withDatabase } from "../database";
import { follow } from "./run";
import { parseFlags } from "../input/flags";

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * `stepwiser batch export <runId> [-o FILE]` and `stepwiser batch import <runId> <output.jsonl>`:
 * a run's requests as an OpenAI batch file for `vllm run-batch`, and its output back.
 */
export async function batchCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseFlags(action === "export" || action === "import" ? `batch ${action}` : "batch", { args: rest, allowPositionals: true, options: { output: { type: "string", short: "o" } } });
  const runId = positionals[0];
  if (action === "export") {
    if (!runId || positionals.length > 1) throw new UsageError("usage: batch export <runId> [-o FILE]");
    await exportRequests(runId, values.output);
  } else if (action === "import") {
    if (!runId || positionals.length !== 2) throw new UsageError("usage: batch import <runId> <output.jsonl>");
    if (values.output) throw new UsageError("batch import takes no -o");
    await importOutput(runId, positionals[1]!);
  } else {
    throw new UsageError("batch needs export or import");
  }
}

/** Works the queue here until the run ends; returns it. */
async function workUntilDone(db: Db, url: string, runId: string) {
  const worker = await startWorker({ databaseUrl: url, db, log: () => {}, settings: IN_COMMAND_WORKER });
  try {
    for (;;) {
      const run = await getRunState({ db, input: { id: runId } });
      if (isTerminal(run.status)) return run;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await worker.stop();
  }
}

/** The export is a job (an export run); its stored file is then copied to the output. */
async function exportRequests(runId: string, output: string | undefined): Promise<void> {
  await withDatabase(async (db, url) => {
    const queue = await connectJobQueue(url);
    let exportRunId: string;
    try {
      exportRunId = (await submitExport(db, queue, { spec: { kind: "batch-requests", runId }, createdById: await actingCreatorId({ db }) })).id;
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
    const run = await workUntilDone(db, url, exportRunId);
    // A refused export leaves no output file behind.
    if (run.status !== "completed") throw new InputError(run.error ?? `the export ended ${run.status}`);
    // A batch-requests export writes one file.
    const [file] = await listExportFiles({ db, input: { runId: exportRunId } });
    if (!file) throw new Error(`export run ${exportRunId} completed without writing its file`);
    const { parts } = await openStoredFile({ db, input: { id: file.id } });
    const out = lineOutput(output);
    try {
      for await (const part of parts) await writeBytes(out, part);
    } finally {
      await closeLineOutput(out);
    }
    const report = readSummary(batchExportReportSchema, readSummary(exportSummarySchema, run.summary)?.report) ?? {};
    log(`exported ${report.requests ?? 0} requests of run ${runId}${output ? ` to ${output}` : ""}${report.skippedUnits ? ` (${report.skippedUnits} units left out)` : ""}`);
  });
}

/** The output is uploaded and imported by a job (an import run), which then queues the offline run; both are followed here. */
async function importOutput(runId: string, given: string): Promise<void> {
  const file = await readableFile(given);
  await withDatabase(async (db, url) => {
    const queue = await connectJobQueue(url);
    let importRunId: string;
    try {
      const createdById = await actingCreatorId({ db });
      const stored = await storeFile(db, { fileName: path.basename(given), purpose: "upload", createdById, maxBytes: MAX_IMPORT_FILE_BYTES }, createReadStream(file));
      importRunId = (await submitBatchOutputImport(db, queue, { fileId: stored.id, runId, createdById })).id;
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
    const imported = await workUntilDone(db, url, importRunId);
    if (imported.status !== "completed") throw new InputError(imported.error ?? `the import ended ${imported.status}`);
    const read = readRunSummary({ kind: "import", summary: imported.summary });
    const result: Partial<BatchOutputImportSummary> = read && "samples" in read ? read : {};
    log(`imported ${result.requests ?? 0} requests (${result.samples ?? 0} samples) from ${given}; ${result.skipped ?? 0} lines skipped`);
    if (result.skippedReason) log(result.skippedReason);
    await follow(db, url, runId, true);
  });
}
