import { InputError, runAnnotationsSchema, type RunAnnotations } from "@stepwiser/core";
import type { Db, Run, RunKind } from "@stepwiser/db";
import { z } from "zod";
import { QUEUES, type JobQueue } from "../queue/queue";
import { executeRun, type EngineOptions } from "./engine";
import { RUN_HANDLERS } from "./registry";
import { validateRunConfig } from "./config-shape";
import { defaultRunName } from "./describe-run";
import { refuseCodeExecutionWithoutSandbox } from "../sandbox/python-sandbox";
import { recordAudit } from "@stepwiser/db";

/**
 * A run's queue job: its first (primary) or a hand-over before its job expires
 * (relay). `helper` marks a job that only adds an executor to a run going on
 * elsewhere (other workers now join by looking for work; such jobs are still read).
 */
export const runJobSchema = z.object({
  runId: z.string().min(1),
  helper: z.boolean().optional(),
  relay: z.boolean().optional(),
});
export type RunJob = z.infer<typeof runJobSchema>;

/**
 * How a process executes a run's job. The run's first job is its primary (a new
 * attempt); a hand-over continues the attempt of the
 * job it replaces, so in another process it only helps; retried after its
 * holder died, a hand-over resumes the run as a new attempt, as the first job would.
 */
export function runJobRole(job: RunJob, retryCount: number): "primary" | "helper" {
  if (job.helper) return "helper";
  return job.relay && retryCount === 0 ? "helper" : "primary";
}

export interface RunRequest {
  kind: RunKind;
  config: unknown;
  createdById?: string;
  /** File the configuration came from, named in errors. */
  source?: string;
  /** The run's name; generated from its kind and config (`defaultRunName`) when absent. */
  name?: string;
  /** Markdown notes. */
  notes?: string;
  tags?: string[];
}

/** A run as it would be stored: its kind, its configuration with every default applied and what it refers to snapshotted, and its annotations. */
export interface PreparedRun {
  kind: RunKind;
  config: unknown;
  datasetId: string | null;
  name: string;
  notes: string;
  tags: string[];
}

/**
 * Validates a run's configuration and snapshots what it refers to (endpoints, prompt
 * template ids), with every check a submission must pass (including that it would
 * plan some work), and stores nothing: what `createRun` stores and `--dry-run` prints.
 */
export async function prepareRun(db: Db, request: RunRequest): Promise<PreparedRun> {
  const handler = RUN_HANDLERS.get(request.kind);
  if (!handler) throw new InputError(`run kind "${request.kind}" is not available (known: ${[...RUN_HANDLERS.keys()].join(", ")})`, { field: "kind" });
  const parsed = validateRunConfig(request.kind, handler.configSchema, request.config, request.source);
  let config: unknown;
  try {
    config = await handler.snapshot(db, parsed);
    const protocolOptions = (parsed as { protocolOptions?: { executeCode?: boolean } }).protocolOptions;
    if (protocolOptions?.executeCode) await refuseCodeExecutionWithoutSandbox({ executeCode: true }, "protocolOptions.executeCode");
  } catch (error) {
    throw locatedInFile(error, request.source);
  }
  const datasetId = handler.datasetId?.(config) ?? null;
  if (datasetId !== null && !(await db.dataset.findUnique({ where: { id: datasetId }, select: { id: true } }))) {
    throw new InputError(`no dataset with id ${JSON.stringify(datasetId)}`, { file: request.source, field: "datasetId" });
  }
  try {
    await handler.refuseEmptyPlan?.(db, config);
  } catch (error) {
    throw locatedInFile(error, request.source);
  }
  const annotations = readRunAnnotations(request);
  const name = annotations.name ?? defaultRunName({ kind: request.kind, config });
  return { kind: request.kind, config, datasetId, name, notes: annotations.notes ?? "", tags: annotations.tags ?? [] };
}

function locatedInFile(error: unknown, file: string | undefined): InputError {
  if (error instanceof InputError) return new InputError(error.reason, { ...error.location, file });
  return new InputError(error instanceof Error ? error.message : String(error), { file });
}

/** Validates and snapshots a run's configuration (`prepareRun`) and stores it as queued. */
export async function createRun(db: Db, request: RunRequest): Promise<Run> {
  const prepared = await prepareRun(db, request);
  const run = await db.$transaction(async (tx) => {
    const created = await tx.run.create({
      data: { kind: prepared.kind, name: prepared.name, notes: prepared.notes, tags: prepared.tags, config: prepared.config as object, datasetId: prepared.datasetId, createdById: request.createdById ?? null },
    });
    await recordAudit(tx, request.createdById, { action: "run.submitted", entityType: "Run", entityId: created.id, after: { kind: prepared.kind, name: prepared.name, tags: created.tags } });
    return created;
  });
  return run;
}

/** The request's name, notes and tags, validated; an error names the field (`name`, `notes`, `tags.2`). */
function readRunAnnotations(request: RunRequest): RunAnnotations {
  const parsed = runAnnotationsSchema.safeParse({ name: request.name, notes: request.notes, tags: request.tags });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file: request.source, field: issue.path.map(String).join(".") });
  }
  return parsed.data;
}

/** Creates a run and queues it for the workers. */
export async function submitRun(db: Db, queue: JobQueue, request: RunRequest): Promise<Run> {
  const run = await createRun(db, request);
  await queue.send(QUEUES.run, { runId: run.id });
  return run;
}

/** Creates a run and executes it in this process, without the queue (tests, benchmarks); returns it finished. */
export async function createAndExecuteRun(db: Db, request: RunRequest, options: EngineOptions): Promise<Run> {
  const run = await createRun(db, request);
  await executeRun(db, run.id, RUN_HANDLERS, options);
  return db.run.findUniqueOrThrow({ where: { id: run.id } });
}

/** Asks the worker executing the run to stop; a run still queued is cancelled when picked up. */
async function existingRun(db: Db, runId: string) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { status: true, kind: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  return run;
}

export async function requestRunCancel(db: Db, runId: string, actorId?: string): Promise<void> {
  const run = await existingRun(db, runId);
  if (run.status !== "queued" && run.status !== "running") throw new InputError(`run ${runId} is ${run.status}; only queued or running runs can be cancelled`);
  await db.$transaction([
    db.run.update({ where: { id: runId }, data: { cancelRequestedAt: new Date() } }),
    recordAudit(db, actorId, { action: "run.cancel_requested", entityType: "Run", entityId: runId }),
  ]);
}

/** Queues a cancelled or interrupted run again; its done units are kept. */
export async function resumeRun(db: Db, queue: JobQueue, runId: string, actorId?: string): Promise<void> {
  const run = await existingRun(db, runId);
  if (run.status === "completed") throw new InputError(`run ${runId} is completed; nothing to resume`);
  await db.runUnit.updateMany({ where: { runId, status: "failed" }, data: { status: "pending", attempts: 0 } });
  await db.$transaction([
    db.run.update({ where: { id: runId }, data: { status: "queued", cancelRequestedAt: null, finishedAt: null, error: null } }),
    recordAudit(db, actorId, { action: "run.resumed", entityType: "Run", entityId: runId }),
  ]);
  // Imports and exports have their own queues; every other kind runs on the engine.
  const queueName = run.kind === "import" ? QUEUES.import : run.kind === "export" ? QUEUES.export : QUEUES.run;
  await queue.send(queueName, { runId });
}
