import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { listExportFiles } from "@stepwiser/api/services/export";
import { openStoredFile } from "@stepwiser/api/services/file";
import { getRunState } from "@stepwiser/api/services/run";
import type { Db } from "@stepwiser/db";
import {
  connectJobQueue,
  exportSummarySchema,
  isSolutionFormat,
  isTerminal,
  readSummary,
  SFT_FORMATS,
  SOLUTION_AGGREGATIONS,
  startWorker,
  submitExport,
  TRAINING_SET_FORMATS,
  type ExportSpecInput,
  type SftFormat,
  type SolutionAggregation,
  type TrainingSetFormat,
} from "@stepwiser/jobs";
import { IN_COMMAND_WORKER } from "../in-command-worker";
import { numberFlag } from "../input/numbers";
import { fromUserCwd } from "../paths";
import { ProgressLine, ProgressMeter } from "../progress";
import { UsageError } from "../usage-error";
import { LABEL_RULE_FLAGS, parseRule } from "../input/label-rule";
import { withDatabase } from "../database";

const log = (line: string) => process.stderr.write(`${line}\n`);
export const EXPORT_KINDS = ["training-set", "segmentation-sft", "selection", "labels", "predictions"] as const;
const DIRECTORY_KINDS: readonly string[] = ["training-set", "segmentation-sft", "selection"];

/**
 * `stepwiser export training-set|segmentation-sft|selection|labels|predictions --run ID --out PATH`:
 * an export run (a job, worked here too unless --detach), whose stored files are
 * then written to PATH (a directory for training and SFT sets, a file otherwise).
 */
export async function exportCommand(args: string[]): Promise<void> {
  const [kind, ...rest] = args;
  if (!kind || !(EXPORT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`export needs one of ${EXPORT_KINDS.join(", ")}${kind ? ` (got "${kind}")` : ""}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      run: { type: "string" },
      out: { type: "string" },
      ...LABEL_RULE_FLAGS,
      format: { type: "string" },
      "max-per-problem": { type: "string" },
      "include-incorrect": { type: "boolean", default: false },
      aggregate: { type: "string" },
      baseline: { type: "string" },
      seed: { type: "string" },
      "held-out": { type: "string" },
      "min-chars": { type: "string" },
      "max-chars": { type: "string" },
      "min-confidence": { type: "string" },
      "data-source": { type: "string" },
      "balance-solutions": { type: "boolean", default: false },
      "max-response-tokens": { type: "string" },
      detach: { type: "boolean", default: false },
    },
  });
  if (!values.run) throw new UsageError("--run is required: the run whose labels or predictions are exported");
  const toDirectory = DIRECTORY_KINDS.includes(kind);
  if (!values.out && !values.detach) throw new UsageError(`--out is required: ${toDirectory ? "a directory for the files" : "a file (or - for stdout)"}`);
  if (toDirectory && values.out === "-") throw new UsageError(`--out must be a directory: ${kind} writes several files`);
  const optional = (flag: string, raw: string | undefined) => (raw === undefined ? undefined : numberFlag(flag, raw));
  let spec: ExportSpecInput;
  if (kind === "segmentation-sft" || kind === "selection") {
    const format = values.format ?? "chat-jsonl";
    if (!(SFT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be ${SFT_FORMATS.slice(0, -1).join(", ")} or ${SFT_FORMATS.at(-1)}, got "${format}"`);
    const common = { runId: values.run, format: format as SftFormat, seed: optional("seed", values.seed), heldOutFraction: optional("held-out", values["held-out"]) };
    if (kind === "segmentation-sft") {
      for (const flag of ["aggregate", "baseline"] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to export selection only`);
      spec = { kind: "segmentation-sft", ...common, maxPerProblem: optional("max-per-problem", values["max-per-problem"]), includeIncorrect: values["include-incorrect"] };
    } else {
      if (values["max-per-problem"] !== undefined || values["include-incorrect"]) throw new UsageError("--max-per-problem and --include-incorrect apply to export segmentation-sft only");
      if (values.aggregate === undefined) throw new UsageError(`--aggregate is required: ${SOLUTION_AGGREGATIONS.join(", ")} (how a response's chunk scores become its score)`);
      if (!(SOLUTION_AGGREGATIONS as readonly string[]).includes(values.aggregate)) throw new UsageError(`--aggregate must be ${SOLUTION_AGGREGATIONS.join(", ")}, got "${values.aggregate}"`);
      if (values.baseline !== undefined && values.baseline !== "outcome") throw new UsageError(`--baseline must be outcome (a seeded random correct response), got "${values.baseline}"`);
      spec = { kind: "selection", ...common, aggregate: values.aggregate as SolutionAggregation, ...(values.baseline ? { baseline: "outcome" as const } : {}) };
    }
  } else if (kind === "training-set") {
    values.format ??= "verl";
    if (!(TRAINING_SET_FORMATS as readonly string[]).includes(values.format)) {
      throw new UsageError(`--format must be ${TRAINING_SET_FORMATS.slice(0, -1).join(", ")} or ${TRAINING_SET_FORMATS.at(-1)}, got "${values.format}"`);
    }
    if (values["balance-solutions"] && !isSolutionFormat(values.format as TrainingSetFormat)) {
      throw new UsageError(`--balance-solutions applies to --format trl-prm or openrlhf-prm only (got --format ${values.format})`);
    }
    const minConfidence = optional("min-confidence", values["min-confidence"]);
    if (minConfidence !== undefined && !(minConfidence >= 0 && minConfidence <= 1)) {
      throw new UsageError(`--min-confidence must be between 0 and 1 (a label's confidence is a probability), got ${values["min-confidence"]}`);
    }
    spec = {
      kind,
      annotateRunId: values.run,
      labelRule: parseRule(values),
      format: values.format as TrainingSetFormat,
      seed: optional("seed", values.seed),
      heldOutFraction: optional("held-out", values["held-out"]),
      minPromptChars: optional("min-chars", values["min-chars"]),
      maxPromptChars: optional("max-chars", values["max-chars"]),
      minConfidence,
      dataSource: values["data-source"],
      balanceSolutions: values["balance-solutions"],
      maxResponseTokens: optional("max-response-tokens", values["max-response-tokens"]),
    };
  } else {
    spec = { kind: kind as "labels" | "predictions", runId: values.run };
  }

  await withDatabase(async (db, url) => {
    const queue = await connectJobQueue(url);
    let runId: string;
    try {
      runId = (await submitExport(db, queue, { spec })).id;
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
