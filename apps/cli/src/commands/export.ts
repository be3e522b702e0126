import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { once } from "node:events";
import { listExportFiles } from "@stepwiser/api/services/export";
import { openStoredFile } from "@stepwiser/api/services/file";
import { getRunState } from "@stepwiser/api/services/run";
import { actingCreatorId } from "@stepwiser/api/services/user";
import type { Db } from "@stepwiser/db";
import { connectJobQueue, exportSummarySchema, isTerminal, readSummary, startWorker, submitExport, type ExportSpecInput } from "@stepwiser/jobs";
import { IN_COMMAND_WORKER } from "../in-command-worker";
import { fromUserCwd } from "../paths";
import { ProgressLine, ProgressMeter } from "../progress";
import { withDatabase } from "../database";
import { DIRECTORY_KINDS, EXPORT_KINDS, EXPORT_OPTIONS, exportKindOf, exportSpecOf } from "./export-flags";
import { parseFlags } from "../input/flags";

const log = (line: string) => process.stderr.write(`${line}\n`);
export { EXPORT_KINDS };

/**
 * `stepwiser export training-set|segmentation-sft|selection|labels|predictions --run ID --out PATH`:
 * an export run (a job, worked here too unless --detach), whose stored files are
 * then written to PATH (a directory for training and SFT sets, a file otherwise).
 */
export async function exportCommand(args: string[]): Promise<void> {
  const [given, ...rest] = args;
  const kind = exportKindOf(given);
  const { values } = parseFlags(`export ${kind}`, { args: rest, options: EXPORT_OPTIONS });
  const spec: ExportSpecInput = exportSpecOf(kind, values);
  const toDirectory = DIRECTORY_KINDS.includes(kind);

  await withDatabase(async (db, url) => {
    const queue = await connectJobQueue(url);
    let runId: string;
    try {
      runId = (await submitExport(db, queue, { spec, createdById: await actingCreatorId({ db }) })).id;
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
    log(`queued export run ${runId}`);
    if (values.detach) {
      process.stdout.write(`${JSON.stringify({ runId, status: "queued" })}\n`);
      return;
    }
    const worker = await startWorker({ databaseUrl: url, db, log: () => {}, settings: IN_COMMAND_WORKER });
    const progress = new ProgressLine(process.stderr);
    const meter = new ProgressMeter("rows");
    let run;
    try {
      for (;;) {
        run = await getRunState({ db, input: { id: runId } });
        const ended = isTerminal(run.status);
        const line = `run ${runId}: ${run.status} ${meter.format(run.unitsDone, run.unitsTotal, ended)}`;
        if (ended) progress.finish(line);
        else progress.update(line, `${run.status} ${run.unitsDone}/${run.unitsTotal}`);
        if (ended) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      await worker.stop();
    }
    if (run.status !== "completed") {
      process.stdout.write(`${JSON.stringify({ runId, status: run.status, error: run.error })}\n`);
      process.exitCode = 1;
      return;
    }
    const files = await listExportFiles({ db, input: { runId } });
    const written = [];
    const toStdout = values.out === "-";
    const target = toStdout ? "-" : fromUserCwd(values.out!);
    if (toDirectory) await mkdir(target, { recursive: true });
    for (const file of files) {
      const destination = toStdout ? "-" : toDirectory ? path.join(target, file.fileName) : target;
      await writeStoredFile(db, file.id, destination);
      written.push({ fileName: file.fileName, path: destination, sizeBytes: file.sizeBytes, sha256: file.sha256 });
    }
    const summary = readSummary(exportSummarySchema, run.summary);
    // A split written empty although both were asked for (the report, and manifest.json, say why).
    const warnings = (summary?.report as { warnings?: unknown } | null | undefined)?.warnings;
    if (Array.isArray(warnings)) for (const warning of warnings) log(`warning: ${String(warning)}`);
    if (!toStdout) process.stdout.write(`${JSON.stringify({ runId, status: run.status, files: written, report: summary?.report ?? null })}\n`);
  });
}

async function writeStoredFile(db: Db, fileId: string, destination: string): Promise<void> {
  const { parts } = await openStoredFile({ db, input: { id: fileId } });
  const out = destination === "-" ? process.stdout : createWriteStream(destination);
  for await (const part of parts) {
    if (!out.write(part)) await once(out, "drain");
  }
  if (out !== process.stdout) {
    (out as NodeJS.WritableStream).end();
    await once(out, "finish");
  }
}
