import { mkdir } from "node:fs/promises";
import path from "node:path";
import { DIRECTORY_KINDS, EXPORT_OPTIONS, exportKindOf, exportSpecOf } from "../commands/export-flags";
import { checkReadable, importFlagsOf } from "../commands/import-flags";
import { importSummaryLines } from "../commands/import-summary";
import { checkLaunchFlags, finalRunJson, LAUNCH_OPTIONS, launchKindOf, readDescriptionFlags, RUN_ACTIONS, RUN_LIST_OPTIONS, runListQueryOf, runProgressLine, withPreset, type FollowedRun } from "../commands/run-flags";
import { readInputJson } from "../input/files";
import { parseFlags } from "../input/flags";
import { checkFileFormat } from "../input/format-check";
import { helpNameFor } from "../help";
import { fromUserCwd } from "../paths";
import { ProgressLine, ProgressMeter } from "../progress";
import { UsageError } from "../usage-error";
import { LAUNCHABLE_RUN_KINDS, TERMINAL_RUN_STATUSES } from "../vocabulary";
import { RemoteClient } from "./client";
import type { RemoteSettings } from "./settings";

/*
 * The commands of remote mode: each is the local command's flags (parsed by
 * the same code, with the same messages) sent to the studio's REST API. Nothing
 * here loads a database client.
 */

/** What remote mode runs, as the refusal of any other command lists it. */
export const REMOTE_COMMANDS = [
  "run list",
  "run <kind> (or run launch <kind>)",
  "run status|cancel|resume|predictions",
  "export labels|predictions|training-set|segmentation-sft|selection",
  "import <format>",
  "import report",
  "endpoint list",
] as const;

/** The refusal of a command that only works on a database: exit 2, naming what remote mode does. */
export function needsDatabase(command: string): UsageError {
  return new UsageError(
    `"${command}" needs database access; remote mode (STEPWISER_URL) supports: ${REMOTE_COMMANDS.join(", ")}. Unset STEPWISER_URL and STEPWISER_TOKEN (and give no --url/--token) to run it on the database`,
  );
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How often a followed run is read again, as local mode reads it. */
const POLL_MS = 500;

/** A run as the API answers (`RunDetail`): the fields remote mode reads. */
interface RemoteRun extends FollowedRun {
  id: string;
  name: string;
  datasetId: string | null;
}

/** Runs one command (a name of the command line's dispatch map, and its arguments) against the studio. */
export async function runRemoteCommand(name: string, args: string[], settings: RemoteSettings): Promise<void> {
  const client = new RemoteClient(settings);
  switch (name) {
    case "run":
      return runCommand(client, args);
    case "export":
      return exportCommand(client, args);
    case "import":
      return importCommand(client, args);
    case "import report":
      return importReportCommand(client, args);
    case "endpoint": {
      const [action, ...rest] = args;
      if (action !== "list") throw needsDatabase(action ? `endpoint ${action}` : "endpoint");
      if (rest.length > 0) throw new UsageError(`endpoint list: unexpected argument "${rest[0]}"`);
      const { endpoints } = await client.json<{ endpoints: unknown[] }>("GET", "/endpoints");
      return print(endpoints);
    }
    default:
      throw needsDatabase(helpNameFor(name, args));
  }
}

/** Polls a run until it ends, drawing the progress line local mode draws; returns the ended run. */
async function followRun(client: RemoteClient, runId: string, unit: "units" | "rows" | "records", expected?: number): Promise<RemoteRun> {
  const progress = new ProgressLine(process.stderr);
  const meter = new ProgressMeter(unit);
  for (;;) {
    const run = await client.json<RemoteRun>("GET", `/runs/${encodeURIComponent(runId)}`);
    const ended = TERMINAL_RUN_STATUSES.includes(run.status);
    if (unit === "units") {
      const { line, key } = runProgressLine(runId, run, meter, ended);
      if (ended) progress.finish(line);
      else progress.update(line, key);
    } else {
      // An import's total is an estimate it revises as it reads; the count given (the file's records) is better until it ends.
      const total = ended || expected === undefined ? run.unitsTotal : Math.max(run.unitsTotal, expected);
      const line = `run ${runId}: ${run.status} ${meter.format(run.unitsDone, total, ended)}`;
      if (ended) progress.finish(line);
      else progress.update(line, `${run.status} ${run.unitsDone}/${total}`);
    }
    if (ended) return run;
    await sleep(POLL_MS);
  }
}

/** Follows a run and prints the line local mode prints when it ends; exit 1 unless it completed. */
async function followAndPrint(client: RemoteClient, runId: string): Promise<void> {
  const run = await followRun(client, runId, "units");
  process.stdout.write(`${finalRunJson(runId, run)}\n`);
  if (run.status !== "completed") process.exitCode = 1;
}

async function runCommand(client: RemoteClient, args: string[]): Promise<void> {
  const [first, ...afterFirst] = args;
  const [action, ...rest] = first === "launch" ? afterFirst : args;
  if (!action) throw new UsageError(`run needs a kind (${LAUNCHABLE_RUN_KINDS.join(", ")}) or ${RUN_ACTIONS.filter((a) => a !== "launch").join("|")}`);
  const kind = launchKindOf(action);
  if (kind) return launch(client, kind, rest);
  if (first === "launch") throw new UsageError(`run launch: unknown run kind "${action}" (kinds: ${LAUNCHABLE_RUN_KINDS.join(", ")})`);
  if (!(RUN_ACTIONS as readonly string[]).includes(action)) {
    throw new UsageError(`run: unknown run kind or action "${action}" (kinds: ${LAUNCHABLE_RUN_KINDS.join(", ")}; actions: ${RUN_ACTIONS.join(", ")})`);
  }
  if (action === "relabel" || action === "edit") throw needsDatabase(`run ${action}`);
  if (action === "list") {
    const { values, positionals } = parseFlags("run list", { args: rest, allowPositionals: true, options: RUN_LIST_OPTIONS });
    if (positionals.length > 0) throw new UsageError(`run list: unexpected argument "${positionals[0]}"`);
    const query = runListQueryOf(values);
    const page = await client.json<{ runs?: unknown[]; items?: unknown[]; nextOffset: number | null }>("GET", "/runs", {
      query: { kind: query.kind, status: query.status, limit: query.limit, offset: query.offset, ...(query.includeDataJobs ? { includeDataJobs: true } : {}) },
    });
    return print({ runs: page.runs ?? page.items ?? [], nextOffset: page.nextOffset ?? null });
  }
  const { values, positionals } = parseFlags(`run ${action}`, { args: rest, allowPositionals: true, options: { detach: { type: "boolean", default: false }, format: { type: "string" } } });
  const runId = positionals[0];
  if (!runId) throw new UsageError(`run ${action} needs a run id`);
  const runPath = `/runs/${encodeURIComponent(runId)}`;
  switch (action) {
    case "status":
      return followAndPrint(client, runId);
    case "cancel":
      await client.json("POST", `${runPath}/cancel`);
      log(`cancel requested for run ${runId}`);
      return;
    case "resume":
      await client.json("POST", `${runPath}/resume`);
      log(`resumed run ${runId}`);
      if (!values.detach) await followAndPrint(client, runId);
      return;
    case "predictions": {
      const format = values.format ?? "processbench";
      if (format === "prmbench") {
        throw new UsageError("run predictions --format prmbench is local-only: the studio's API has no PRMBench predictions (GET /runs/{id}/predictions answers ProcessBench's lines); run it with the database (without STEPWISER_URL)");
      }
      if (format !== "processbench") throw new UsageError(`--format must be processbench or prmbench, got "${format}"`);
      // JSON lines {"id", "prediction"}, as the API streams them: the input of `stepwiser processbench score`.
      await client.download(`${runPath}/predictions`, "-");
      return;
    }
    default:
      throw new UsageError(`unknown run action "${action}"`);
  }
}

async function launch(client: RemoteClient, kind: string, args: string[]): Promise<void> {
  const { values } = parseFlags(`run ${kind.replaceAll("_", "-")}`, { args, options: LAUNCH_OPTIONS });
  const description = readDescriptionFlags(values);
  const configFile = checkLaunchFlags(kind, values);
  if (values["dry-run"]) throw needsDatabase(`run ${kind} --dry-run`);
  const config = withPreset(kind, await readInputJson(configFile), values.preset, path.basename(configFile));
  const run = await client.json<RemoteRun>("POST", "/runs", {
    body: { kind, config, ...(values.offline ? { offline: true } : {}), ...(description.name !== undefined ? { name: description.name } : {}), ...(description.tags !== undefined ? { tags: description.tags } : {}), ...(description.notes !== undefined ? { notes: description.notes } : {}) },
  });
  if (values.offline) {
    log(`created ${kind} run ${run.id} "${run.name}" for offline execution; next: stepwiser batch export ${run.id} -o requests.jsonl (on the database)`);
    return print({ runId: run.id, name: run.name, status: run.status, execution: "offline" });
  }
  log(`queued ${kind} run ${run.id} "${run.name}"`);
  if (values.detach) return print({ runId: run.id, name: run.name, status: "queued" });
  await followAndPrint(client, run.id);
}

/** An export's stored file, as GET /exports/{id}/files lists it. */
interface ExportFile {
  fileId: string;
  name: string;
  sizeBytes: number;
  sha256?: string | null;
}

async function exportCommand(client: RemoteClient, args: string[]): Promise<void> {
  const [given, ...rest] = args;
  const kind = exportKindOf(given);
  const { values } = parseFlags(`export ${kind}`, { args: rest, options: EXPORT_OPTIONS });
  const { kind: _kind, ...fields } = exportSpecOf(kind, values) as { kind: string; runId?: string; annotateRunId?: string } & Record<string, unknown>;
  const { runId: _runId, annotateRunId: _annotateRunId, ...options } = fields;
  const created = await client.json<RemoteRun>("POST", "/exports", { body: { kind, runId: values.run, options } });
  const runId = created.id;
  log(`queued export run ${runId}`);
  if (values.detach) return print({ runId, status: "queued" });
  const run = await followRun(client, runId, "rows");
  if (run.status !== "completed") {
    print({ runId, status: run.status, error: run.error });
    process.exitCode = 1;
    return;
  }
  const { files } = await client.json<{ files: ExportFile[] }>("GET", `/exports/${encodeURIComponent(runId)}/files`);
  const toDirectory = DIRECTORY_KINDS.includes(kind);
  const toStdout = values.out === "-";
  const target = toStdout ? "-" : fromUserCwd(values.out!);
  if (toDirectory) await mkdir(target, { recursive: true });
  const written = [];
  for (const file of files) {
    const destination = toStdout ? "-" : toDirectory ? path.join(target, path.basename(file.name)) : target;
    const got = await client.download(`/files/${encodeURIComponent(file.fileId)}`, destination);
    if (file.sha256 && got.sha256 !== file.sha256) {
      throw new Error(`the download of ${file.name} (file ${file.fileId}) has SHA-256 ${got.sha256}, but the studio stored ${file.sha256}: it was altered or cut short; export again`);
    }
    written.push({ fileName: file.name, path: destination, sizeBytes: got.sizeBytes, sha256: got.sha256 });
  }
  const summary = run.summary as { report?: unknown } | null;
  if (!toStdout) print({ runId, status: run.status, files: written, report: summary?.report ?? null });
}

/** An import run's summary, as far as remote mode reads it (a failed import may have none). */
interface ImportRunSummary {
  records?: number;
  written?: number;
  skipped?: number;
  replaced?: number;
  chunks?: number;
  duplicateOfRunId?: string;
  report?: Parameters<typeof importSummaryLines>[3];
}

async function importCommand(client: RemoteClient, args: string[]): Promise<void> {
  const flags = importFlagsOf(args);
  if (flags.preview) {
    // A preview reads the files here and stores nothing: the same as without the studio, and no database is opened.
    const { importCommand: localImport } = await import("../commands/import");
    return localImport(args);
  }
  const files = await Promise.all(flags.files.map(checkReadable));
  // A file whose head shows another format is refused here, as in local mode, before a byte is uploaded.
  for (const [i, file] of files.entries()) await checkFileFormat(flags.format, file, flags.files[i]!);
  const fileIds: string[] = [];
  for (const file of files) {
    const uploaded = await client.upload<{ fileId: string; sizeBytes: number }>("/uploads", { fileName: path.basename(file) }, file);
    log(`uploaded ${path.basename(file)} (${uploaded.sizeBytes} bytes) as file ${uploaded.fileId}`);
    fileIds.push(uploaded.fileId);
  }
  const body = {
    format: flags.format,
    fileIds,
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.dataset !== undefined ? { datasetId: flags.dataset } : {}),
    ...(flags.subset !== undefined ? { subset: flags.subset } : {}),
    ...(flags.generator !== undefined ? { generator: flags.generator } : {}),
    ...(flags.mapSpec !== undefined ? { map: flags.mapSpec } : {}),
    duplicates: flags.duplicates,
    ...(flags.deleteHumanLabels ? { deleteHumanLabels: true } : {}),
    onInvalid: flags.policy.onInvalid,
    ...(flags.policy.onInvalid === "skip" ? { maxInvalidShare: flags.policy.maxInvalidShare } : {}),
  };
  const { runs } = await client.json<{ runs: RemoteRun[] }>("POST", "/imports", { body });
  runs.forEach((run, i) => log(`queued import run ${run.id}: ${path.basename(files[i] ?? "")}`));
  if (flags.detach) return print({ runs: runs.map((run) => ({ runId: run.id, status: "queued" })) });

  const results = [];
  for (const [i, queued] of runs.entries()) {
    const run = await followRun(client, queued.id, "records");
    const summary = (run.summary ?? {}) as ImportRunSummary;
    if (summary.report) {
      const imported = run.status === "completed" ? { written: summary.written ?? 0, skipped: summary.skipped ?? 0, replaced: summary.replaced ?? 0 } : null;
      for (const line of importSummaryLines(path.basename(files[i] ?? ""), run.id, imported, summary.report)) log(line);
    }
    results.push({
      runId: run.id,
      status: run.status,
      datasetId: run.datasetId,
      solutions: 0,
      written: summary.written ?? 0,
      skipped: summary.skipped ?? 0,
      replaced: summary.replaced ?? 0,
      chunks: summary.chunks ?? 0,
      ...(summary.duplicateOfRunId ? { duplicateOfRunId: summary.duplicateOfRunId } : {}),
      ...(summary.report ? { report: summary.report } : {}),
      error: run.error,
    });
  }
  // Each dataset's solutions now, as local mode counts them.
  if (results.some((r) => r.datasetId)) {
    const { items } = await client.json<{ items: { id: string; solutionCount: number }[] }>("GET", "/datasets");
    const counts = new Map(items.map((dataset) => [dataset.id, dataset.solutionCount]));
    for (const result of results) result.solutions = (result.datasetId && counts.get(result.datasetId)) || 0;
  }
  print({ runs: results, solutions: results.reduce((n, r) => n + r.solutions, 0) });
  if (results.some((r) => r.status !== "completed")) process.exitCode = 1;
}

async function importReportCommand(client: RemoteClient, args: string[]): Promise<void> {
  const { values, positionals } = parseFlags("import report", { args, allowPositionals: true, options: { output: { type: "string", short: "o" } } });
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new UsageError("usage: import report <runId> [-o FILE]");
  const destination = values.output === undefined || values.output === "-" ? "-" : fromUserCwd(values.output);
  const { lines } = await client.download(`/imports/${encodeURIComponent(runId)}/report`, destination);
  log(`${lines} report ${lines === 1 ? "entry" : "entries"} of import run ${runId}${values.output ? ` written to ${values.output}` : ""}`);
}
