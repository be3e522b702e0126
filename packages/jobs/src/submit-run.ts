import { InputError, runDescriptionSchema, type RunDescription } from "@stepwiser/core";
import type { Db, Run } from "@stepwiser/db";
import { z } from "zod";
import { QUEUES, type JobQueue } from "./queue/queue";
import { executeRun, type EngineOptions } from "./runs/engine";
import { UNIT_RUN_KINDS, type RunKind } from "./registry";
import { validateRunConfig } from "./kit/config-shape";
import { defaultRunName } from "./describe-run";
import { refuseCodeExecutionWithoutSandbox } from "./sandbox/python-sandbox";
import { recordAudit } from "@stepwiser/db";
import { recordRunSpend } from "./runs/run-spend-record";

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

/** A run as it would be stored: its kind, its configuration with every default applied and what it refers to snapshotted, and its name, notes and tags. */
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
  const handler = UNIT_RUN_KINDS.get(request.kind);
  if (!handler) throw new InputError(`run kind "${request.kind}" is not available (known: ${[...UNIT_RUN_KINDS.keys()].join(", ")})`, { field: "kind" });
  const parsed = validateRunConfig(request.kind, handler.submitSchema, request.config, request.source);
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
  const description = readRunDescription(request);
  const name = description.name ?? defaultRunName({ kind: request.kind, config });
  return { kind: request.kind, config, datasetId, name, notes: description.notes ?? "", tags: description.tags ?? [] };
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
    await recordRunSpend(tx, created.id, UNIT_RUN_KINDS.get(prepared.kind)!.endpoints(prepared.config), created);
    await recordAudit(tx, request.createdById, { action: "run.submitted", entityType: "Run", entityId: created.id, after: { kind: prepared.kind, name: prepared.name, tags: created.tags } });
    return created;
  });
  return run;
}

/** The request's name, notes and tags, validated; an error names the field (`name`, `notes`, `tags.2`). */
function readRunDescription(request: RunRequest): RunDescription {
  const parsed = runDescriptionSchema.safeParse({ name: request.name, notes: request.notes, tags: request.tags });
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
  await executeRun(db, run.id, UNIT_RUN_KINDS, options);
  return db.run.findUniqueOrThrow({ where: { id: run.id } });
}
