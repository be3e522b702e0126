import path from "node:path";
import { getRunState, listRuns, updateRunDescription } from "@stepwiser/api/services/run";
import { actingCreatorId, actingUser } from "@stepwiser/api/services/user";
import { InputError, nearestName } from "@stepwiser/core";
import type { Db, RunStatus } from "@stepwiser/db";
import { connectJobQueue, createRun, isTerminal, knownFieldsAt, prepareRun, relabelAnnotateRun, prmbenchRunPredictions, runPredictions, requestRunCancel, resumeRun, UNIT_RUN_KINDS, startWorker, submitRun, type RunKind } from "@stepwiser/jobs";
import { IN_COMMAND_WORKER } from "../in-command-worker";
import { withDatabase } from "../database";
import { readInputJson } from "../input/files";
import { LABEL_RULE_FLAGS, parseRule } from "../input/label-rule";
import { notFoundAt } from "../not-found";
import { ProgressLine, ProgressMeter } from "../progress";
import { UsageError } from "../usage-error";
import { ANNOTATION_FLAGS, checkLaunchFlags, finalRunJson, LAUNCH_OPTIONS, launchKindOf, readDescriptionFlags, RUN_ACTIONS, RUN_LIST_OPTIONS, runListQueryOf, runProgressLine, tagsFrom, withPreset } from "./run-flags";
import { parseFlags, type UnknownFlagHint } from "../input/flags";

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
      const { line, key } = runProgressLine(runId, run, meter, ended);
      if (ended) progress.finish(line);
      else progress.update(line, key);
      if (ended) {
        process.stdout.write(`${finalRunJson(runId, run)}\n`);
        if (run.status !== "completed") process.exitCode = 1;
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await worker?.stop();
  }
}

export { RUN_ACTIONS };

/**
 * `stepwiser run <kind> --config file.json [--detach | --offline]`, and
 * `stepwiser run cancel|resume|relabel|status <runId>`.
 */
export async function runCommand(args: string[]): Promise<void> {
  const [first, ...afterFirst] = args;
  // `run launch <kind> …` is `run <kind> …`.
  const [action, ...rest] = first === "launch" ? afterFirst : args;
  if (!action) throw new UsageError(`run needs a kind (${[...UNIT_RUN_KINDS.keys()].join(", ")}) or ${RUN_ACTIONS.filter((a) => a !== "launch").join("|")}`);
  const kind = launchKindOf(action);
  if (kind && UNIT_RUN_KINDS.has(kind)) return launch(kind as RunKind, rest);
  if (first === "launch") throw new UsageError(`run launch: unknown run kind "${action}" (kinds: ${[...UNIT_RUN_KINDS.keys()].join(", ")})`);
  if (!(RUN_ACTIONS as readonly string[]).includes(action)) {
    throw new UsageError(`run: unknown run kind or action "${action}" (kinds: ${[...UNIT_RUN_KINDS.keys()].join(", ")}; actions: ${RUN_ACTIONS.join(", ")})`);
  }
  if (action === "edit") return editRun(rest);
  if (action === "list") return listRunsCommand(rest);
  const { values, positionals } = parseFlags(`run ${action}`, {
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

/**
 * `stepwiser run list [--kind K] [--status S] [--limit N] [--offset N]`: one page of runs, newest first, through the
 * service the REST API's GET /runs uses; prints {"runs": [...], "nextOffset"} (null on the last page), as remote mode does.
 */
async function listRunsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags("run list", { args, allowPositionals: true, options: RUN_LIST_OPTIONS });
  if (positionals.length > 0) throw new UsageError(`run list: unexpected argument "${positionals[0]}"`);
  const query = runListQueryOf(values);
  await withDatabase(async (db) => {
    const page = await listRuns({
      db,
      user: await actingUser({ db }),
      input: { kinds: query.kind ? [query.kind as RunKind] : undefined, statuses: query.status ? [query.status as RunStatus] : undefined, includeDataJobs: query.includeDataJobs, sort: "createdAt", order: "desc", offset: query.offset, limit: query.limit },
    });
    // Serialized as the REST API serializes it: dates as ISO 8601, 64-bit counts as numbers.
    const json = JSON.stringify({ runs: page.runs, nextOffset: page.hasMore ? query.offset + query.limit : null }, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value));
    process.stdout.write(`${json}\n`);
  });
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

/** `stepwiser run edit <runId> [--name N | --generated-name] [--tag T …] [--no-tags] [--notes TEXT]`: audited as the first admin. */
async function editRun(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags("run edit", {
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

/** For `run <kind> --rollouts 8`: a flag that names (or nearly names) a field of the kind's config says to set it in the config file. */
function configFieldHint(kind: RunKind): UnknownFlagHint {
  return (flag) => {
    const schema = UNIT_RUN_KINDS.get(kind)?.submitSchema;
    if (!schema) return undefined;
    const fields = knownFieldsAt(schema, []);
    const field = fields.includes(flag) ? flag : nearestName(flag, fields);
    if (!field) return undefined;
    return `${field === flag ? `"${field}" is` : `did you mean "${field}"? It is`} a field of the ${kind} run configuration, not a flag: set it in the --config file`;
  };
}

async function launch(kind: RunKind, args: string[]): Promise<void> {
  const { values } = parseFlags(`run ${kind.replaceAll("_", "-")}`, { args, options: LAUNCH_OPTIONS }, configFieldHint(kind));
  const description = readDescriptionFlags(values);
  const configFile = checkLaunchFlags(kind, values);
  const config = withPreset(kind, await readInputJson(configFile), values.preset, path.basename(configFile));
  await withDatabase(async (db, url) => {
    if (values["dry-run"]) {
      const prepared = await prepareRun(db, { kind, config, source: path.basename(configFile), ...description });
      process.stdout.write(`${JSON.stringify({ kind: prepared.kind, config: prepared.config })}\n`);
      return;
    }
    if (values.offline) {
      // Never sent to the queue, so no worker picks it up: `batch import` executes it once its requests are answered.
      const run = await createRun(db, { kind, config, source: path.basename(configFile), createdById: (await actingCreatorId({ db })) ?? undefined, ...description });
      log(`created ${kind} run ${run.id} "${run.name}" for offline execution; next: stepwiser batch export ${run.id} -o requests.jsonl`);
      process.stdout.write(`${JSON.stringify({ runId: run.id, name: run.name, status: run.status, execution: "offline" })}\n`);
      return;
    }
    // Created by the user the command line acts as (the first admin), as the browser's and the REST API's runs are by theirs.
    const createdById = (await actingCreatorId({ db })) ?? undefined;
    const queue = await connectJobQueue(url);
    let run;
    try {
      run = await submitRun(db, queue, { kind, config, source: path.basename(configFile), createdById, ...description });
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
