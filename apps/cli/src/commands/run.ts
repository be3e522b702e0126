import path from "node:path";
import { parseArgs } from "node:util";
import { getRunState, updateRunDescription } from "@stepwiser/api/services/run";
import { actingUser } from "@stepwiser/api/services/user";
import { InputError, isPaperPresetId, PAPER_PRESET_IDS, paperPresetLabelRules, runDescriptionSchema, splitTags, withAverageCoverage } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { BATCH_RUN_KINDS, connectJobQueue, createRun, isTerminal, prepareRun, relabelAnnotateRun, prmbenchRunPredictions, runPredictions, requestRunCancel, resumeRun, UNIT_RUN_KINDS, startWorker, submitRun, type RunKind } from "@stepwiser/jobs";
import { IN_COMMAND_WORKER } from "../in-command-worker";
import { withDatabase } from "../database";
import { readInputJson } from "../input/files";
import { LABEL_RULE_FLAGS, parseRule } from "../input/label-rule";
import { notFoundAt } from "../not-found";
import { ProgressLine, ProgressMeter } from "../progress";
import { UsageError } from "../usage-error";

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Prints progress until the run ends, working the queue here too unless told not to. */
export async function follow(db: Db, url: string, runId: string, workHere: boolean): Promise<void> {
  const worker = workHere ? await startWorker({ databaseUrl: url, db, log: () => {}, settings: IN_COMMAND_WORKER }) : undefined;
  try {
    const progress = new ProgressLine(process.stderr);
    const meter = new ProgressMeter("units");
    for (;;) {
      const run = await getRunState({ db, input: { id: runId } });
      const ended = isTerminal(run.status);
      const counts = `${run.unitsFailed} failed · ${run.requests} requests · ${run.completionTokens} tokens generated`;
      const line = `run ${runId}: ${run.status} ${meter.format(run.unitsDone, run.unitsTotal, ended)} · ${counts}`;
      if (ended) progress.finish(line);
      else progress.update(line, `${run.status} ${run.unitsDone}/${run.unitsTotal} ${counts}`);
      if (ended) {
        process.stdout.write(
          `${JSON.stringify({ runId, kind: run.kind, status: run.status, unitsDone: run.unitsDone, unitsFailed: run.unitsFailed, unitsTotal: run.unitsTotal, requests: run.requests, promptTokens: run.promptTokens, completionTokens: run.completionTokens, cachedTokens: run.cachedTokens, error: run.error, summary: run.kind === "benchmark" ? withAverageCoverage(run.summary) : run.summary })}\n`,
        );
        if (run.status !== "completed") process.exitCode = 1;
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await worker?.stop();
  }
}

export const RUN_ACTIONS = ["cancel", "resume", "relabel", "status", "predictions", "edit"] as const;

/**
 * `stepwiser run <kind> --config file.json [--detach | --offline]`, and
 * `stepwiser run cancel|resume|relabel|status <runId>`.
 */
export async function runCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (!action) throw new UsageError(`run needs a kind (${[...UNIT_RUN_KINDS.keys()].join(", ")}) or cancel|resume|relabel|status|predictions`);
  const kind = action.replaceAll("-", "_"); // `run chunk-reset` and `run chunk_reset` alike
  if (UNIT_RUN_KINDS.has(kind)) return launch(kind as RunKind, rest);
  if (!(RUN_ACTIONS as readonly string[]).includes(action)) {
    throw new UsageError(`run: unknown run kind or action "${action}" (kinds: ${[...UNIT_RUN_KINDS.keys()].join(", ")}; actions: ${RUN_ACTIONS.join(", ")})`);
  }
  if (action === "edit") return editRun(rest);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { detach: { type: "boolean", default: false }, format: { type: "string" }, ...LABEL_RULE_FLAGS },
  });
  const runId = positionals[0];
  if (!runId) throw new UsageError(`run ${action} needs a run id`);
  await withDatabase(async (db, url) => {
    switch (action) {
      case "status":
        await getRunState({ db, input: { id: runId } }).catch(notFoundAt("runId"));
        return follow(db, url, runId, false);
      case "cancel":
        await requestRunCancel(db, runId);
        log(`cancel requested for run ${runId}`);
        return;
      case "resume": {
        const queue = await connectJobQueue(url);
        try {
          await resumeRun(db, queue, runId);
        } finally {
          await queue.stop({ graceful: false, wait: true });
        }
        if (!values.detach) await follow(db, url, runId, true);
        return;
      }
      case "predictions": {
        const format = values.format ?? "processbench";
        if (format === "prmbench") {
          // JSON lines {"id", "labels"}: the input of `stepwiser prmbench score`.
          const leftOut: string[] = [];
          for await (const line of prmbenchRunPredictions(db, runId, (id, reason) => leftOut.push(`${id} (${reason})`))) process.stdout.write(`${JSON.stringify(line)}\n`);
          if (leftOut.length) log(`${leftOut.length} items left out, their output not readable as step labels (as PRMBench's evaluator leaves out invalid outputs): ${leftOut.slice(0, 10).join(", ")}${leftOut.length > 10 ? ", …" : ""}`);
          return;
        }
        if (format !== "processbench") throw new UsageError(`--format must be processbench or prmbench, got "${format}"`);
        // JSON lines {"id", "prediction"}: the input of `stepwiser processbench score`.
        for await (const line of runPredictions(db, runId)) process.stdout.write(`${JSON.stringify(line)}\n`);
        return;
      }
      case "relabel": {
        const rule = parseRule(values);
        const result = await relabelAnnotateRun(db, runId, [rule]);
        process.stdout.write(`${JSON.stringify({ runId, ...result, requests: 0 })}\n`);
        return;
      }
      default:
        throw new UsageError(`unknown run action "${action}"`);
    }
  });
}

/** The flags naming and annotating a run, at launch and in `run edit`. */
const ANNOTATION_FLAGS = { name: { type: "string" }, tag: { type: "string", multiple: true }, notes: { type: "string" } } as const;

/** `--tag a --tag "b, c"` → ["a", "b", "c"]; undefined when no --tag was given. */
function tagsFrom(values: { tag?: string[] }): string[] | undefined {
  return values.tag?.flatMap(splitTags);
}

/** An error of `run edit`'s service (its only fields are name, notes and tags) names the flag that carried it. */
function annotationFlagError(error: unknown): never {
  if (error instanceof InputError && error.location.field) {
    const field = error.location.field.split(".")[0]!;
    const flag = field === "name" ? "--name" : field === "notes" ? "--notes" : field === "tags" ? "--tag" : null;
    if (flag) throw new UsageError(`${flag}: ${error.reason}`);
  }
  throw error;
}

/** --name, --notes and --tag read with the run's own rules; an error names the flag. */
function readDescriptionFlags(values: { name?: string; notes?: string; tag?: string[] }) {
  const parsed = runDescriptionSchema.safeParse({ name: values.name, notes: values.notes, tags: tagsFrom(values) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = issue.path[0] === "tags" ? "--tag" : `--${String(issue.path[0])}`;
    throw new UsageError(`${flag}: ${issue.message}`);
  }
  return parsed.data;
}

/** `stepwiser run edit <runId> [--name N | --generated-name] [--tag T …] [--no-tags] [--notes TEXT]`: audited as the first admin. */
async function editRun(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...ANNOTATION_FLAGS, "generated-name": { type: "boolean", default: false }, "no-tags": { type: "boolean", default: false } },
  });
  const runId = positionals[0];
  if (!runId) throw new UsageError("run edit needs a run id");
  if (positionals.length > 1) throw new UsageError(`run edit: unexpected argument "${positionals[1]}"`);
  if (values.name !== undefined && values["generated-name"]) throw new UsageError("--name and --generated-name exclude each other");
  if (values.tag !== undefined && values["no-tags"]) throw new UsageError("--tag and --no-tags exclude each other");
  const input = {
    id: runId,
    name: values["generated-name"] ? null : values.name,
    notes: values.notes,
    tags: values["no-tags"] ? [] : tagsFrom(values),
  };
  if (input.name === undefined && input.notes === undefined && input.tags === undefined) {
    throw new UsageError("run edit needs --name, --generated-name, --tag, --no-tags or --notes");
  }
  await withDatabase(async (db) => {
    const result = await updateRunDescription({ db, user: await actingUser({ db }), input }).catch(annotationFlagError);
    const run = await getRunState({ db, input: { id: runId } });
    process.stdout.write(`${JSON.stringify({ id: run.id, name: run.name, notes: run.notes, tags: run.tags, changed: result.changed })}\n`);
  });
}

async function launch(kind: RunKind, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      detach: { type: "boolean", default: false },
      offline: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      preset: { type: "string" },
      ...ANNOTATION_FLAGS,
    },
  });
  const description = readDescriptionFlags(values);
  if (!values.config) throw new UsageError(`run ${kind} needs --config file.json`);
  if (values.offline && values.detach) throw new UsageError("--offline and --detach exclude each other: an offline run is never queued");
  if (values["dry-run"] && (values.offline || values.detach)) throw new UsageError(`--dry-run stores nothing, so it excludes --${values.offline ? "offline" : "detach"}`);
  if (values.offline && !(BATCH_RUN_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--offline: batch execution supports annotate and judge runs, not ${kind}`);
  const config = withPreset(kind, await readInputJson(values.config), values.preset, path.basename(values.config));
  await withDatabase(async (db, url) => {
    if (values["dry-run"]) {
      const prepared = await prepareRun(db, { kind, config, source: path.basename(values.config!), ...description });
      process.stdout.write(`${JSON.stringify({ kind: prepared.kind, config: prepared.config })}\n`);
      return;
    }
    if (values.offline) {
      // Never sent to the queue, so no worker picks it up: `batch import` executes it once its requests are answered.
      const run = await createRun(db, { kind, config, source: path.basename(values.config!), ...description });
      log(`created ${kind} run ${run.id} "${run.name}" for offline execution; next: stepwiser batch export ${run.id} -o requests.jsonl`);
      process.stdout.write(`${JSON.stringify({ runId: run.id, name: run.name, status: run.status, execution: "offline" })}\n`);
      return;
    }
    const queue = await connectJobQueue(url);
    let run;
    try {
      run = await submitRun(db, queue, { kind, config, source: path.basename(values.config!), ...description });
    } finally {
      // Also when the config is refused: an open queue connection would keep the process alive.
      await queue.stop({ graceful: false, wait: true });
    }
    log(`queued ${kind} run ${run.id} "${run.name}"`);
    if (values.detach) {
      process.stdout.write(`${JSON.stringify({ runId: run.id, name: run.name, status: "queued" })}\n`);
      return;
    }
    await follow(db, url, run.id, true);
  });
}

/**
 * `--preset paper-1.5b|paper-7b`: the paper's label settings for an annotate run, written as
 * the config's labelRules. A config that gives its own labelRules, an unknown preset and a
 * kind without label rules are refused.
 */
export function withPreset(kind: RunKind, config: unknown, preset: string | undefined, file: string): unknown {
  if (preset === undefined) return config;
  if (!isPaperPresetId(preset)) throw new UsageError(`--preset: unknown preset "${preset}" (known: ${PAPER_PRESET_IDS.join(", ")})`);
  if (kind !== "annotate") throw new UsageError(`--preset sets an annotate run's label rules (γ, α); a ${kind} run has none`);
  if (typeof config !== "object" || config === null || Array.isArray(config)) return config; // the config's own check reports it
  if ("labelRules" in config) throw new InputError(`--preset ${preset} sets labelRules, and the config gives its own; drop one of them`, { file, field: "labelRules" });
  return { ...config, labelRules: paperPresetLabelRules(preset) };
}
