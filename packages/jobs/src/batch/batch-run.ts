import { InputError } from "@stepwiser/core";
import type { Db, Run } from "@stepwiser/db";
import { EndpointClients } from "../inference/endpoint-clients";
import { planUnits } from "../runs/engine";
import type { BatchHooks, RunContext, UnitRunKind, UnitRunKinds } from "../runs/run-kind";
import { readStoredConfig, UnreadableRunConfigError } from "../runs/stored-config";
import { BATCH_RUN_KINDS, type BatchRunKind } from "./custom-id";

/** A run whose requests may be answered offline, with its kind's batch hooks and its stored config. */
export interface BatchRun {
  run: Run;
  kind: BatchRunKind;
  config: unknown;
  module: UnitRunKind<unknown>;
  batch: BatchHooks<unknown>;
}

/**
 * A run whose requests may be answered offline: a run of a kind with batch
 * hooks (annotate, judge) that no worker is executing and that still has work left.
 */
export async function loadBatchRun(db: Db, runId: string, unitKinds: UnitRunKinds): Promise<BatchRun> {
  const run = await db.run.findUnique({ where: { id: runId } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  const module = unitKinds.get(run.kind);
  if (!module?.batch || !(BATCH_RUN_KINDS as readonly string[]).includes(run.kind)) {
    throw new InputError(`batch execution supports annotate and judge runs; run ${runId} is a ${run.kind} run`, { field: "runId" });
  }
  if (run.status === "completed") throw new InputError(`run ${runId} is completed; it needs no more requests`, { field: "runId" });
  if (run.status === "running") {
    throw new InputError(`run ${runId} is being executed by a worker; cancel it first, or create the run with \`run ${run.kind} --offline\``, { field: "runId" });
  }
  let config: unknown;
  try {
    // The stored reading, as its execution will read it.
    config = readStoredConfig(run, module.storedSchema);
  } catch (error) {
    if (!(error instanceof UnreadableRunConfigError)) throw error;
    throw new InputError(`run ${runId} has an invalid configuration: ${error.reason}`, { field: "config" });
  }
  return { run, kind: run.kind as BatchRunKind, config, module, batch: module.batch };
}

/**
 * Plans the run's units with its own handler, as its first execution would: the
 * units a batch file covers are then exactly the units the execution works.
 */
export async function ensureRunPlanned(db: Db, batch: BatchRun): Promise<void> {
  if (batch.run.plannedAt) return;
  const ctx: RunContext<unknown> = {
    db,
    runId: batch.run.id,
    config: batch.config,
    signal: new AbortController().signal,
    // Planning reads the database only; no endpoint is reached.
    endpoints: new EndpointClients(),
    recordUsage: () => {},
    log: () => {},
  };
  await planUnits(ctx, batch.module);
}

/** Keys of the units an execution would still work (pending, or failed and to be retried), in plan order, page by page. */
export async function* unitsToWork(db: Db, runId: string, pageSize = 200): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const page = await db.runUnit.findMany({
      where: { runId, status: { in: ["pending", "failed"] }, position: { gt: after } },
      orderBy: { position: "asc" },
      take: pageSize,
      select: { key: true, position: true },
    });
    for (const unit of page) yield unit.key;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.position;
  }
}
