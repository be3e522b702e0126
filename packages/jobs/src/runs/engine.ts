import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { Db } from "@stepwiser/db";
import type { TokenUsage } from "@stepwiser/inference";
import type { EndpointClients } from "../inference/endpoint-clients";
import { markRunFinished } from "./run-state";
import { readStoredConfig, UnreadableRunConfigError } from "./stored-config";
import type { AnyRunKindHandler, RunContext, UnitRunKinds } from "./run-kind";
import { recordRunCost } from "./run-spend-record";
import { UnitClaims, type ClaimedUnit } from "./unit-claims";

export interface EngineOptions {
  endpoints: EndpointClients;
  log?: (line: string) => void;
  /** Attempts per unit before it is marked failed (the run goes on). */
  maxUnitAttempts?: number;
  /** How often counters are written and cancellation is checked. */
  flushIntervalMs?: number;
  /**
   * "primary" (the run's own job: counts an attempt) or "helper" (another
   * executor joining a run already going).
   */
  role?: "primary" | "helper";
  /** Names this executor in its units' claims; defaults to host/pid/random. */
  executorId?: string;
  /** A claimed unit whose executor stops renewing is claimable again after this long. */
  unitLeaseSeconds?: number;
}

const PLAN_BATCH = 500;
/** Units claimed at once: small, so units spread over every executor of a run. */
const CLAIM_BATCH = 25;
/** How often an executor with nothing left to claim looks again while other executors finish theirs. */
const TAIL_POLL_MS = 1000;

export function defaultExecutorId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(3).toString("hex")}`;
}

/**
 * Executes (or resumes) one run: plans its units once, works the pending ones
 * with the kind's concurrency, keeps the live counters, honours cancellation,
 * and ends the run completed, completed_with_failures, failed or cancelled.
 * Any number of executors, in any number of processes, may execute one run at
 * once: they claim units from the database (each unit is worked by one), and
 * the one that sees the last unit finished ends the run.
 */
export async function executeRun(db: Db, runId: string, handlers: UnitRunKinds, options: EngineOptions): Promise<void> {
  const log = options.log ?? (() => {});
  const maxUnitAttempts = options.maxUnitAttempts ?? 3;
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  if (run.status !== "queued" && run.status !== "running") return; // finished or cancelled meanwhile
  const handler = handlers.get(run.kind);
  if (!handler) {
    await markRunFinished(db, runId, "failed", `no handler for run kind ${run.kind}`);
    return;
  }
  // The stored reading, as every reader of the run has it: a run stored before a submission check was added
  // (or a default changed) resumes as it was stored, not as a new submission would read.
  let config: unknown;
  try {
    config = readStoredConfig(run, handler.storedSchema);
  } catch (error) {
    if (!(error instanceof UnreadableRunConfigError)) throw error;
    await markRunFinished(db, runId, "failed", `invalid configuration: ${error.message}`);
    return;
  }
  const endpoints = handler.endpoints(config);
  /** Ends the run cancelled and lets its kind leave what it wrote usable. */
  const endCancelled = async () => {
    await markRunFinished(db, runId, "cancelled");
    await handler.stopped?.(db, runId, config);
  };
  if (run.cancelRequestedAt) {
    await endCancelled();
    return;
  }
  const role = options.role ?? "primary";
  if (role === "primary") {
    await db.run.update({ where: { id: runId }, data: { status: "running", startedAt: run.startedAt ?? new Date(), attempts: { increment: 1 }, error: null } });
    if (run.plannedAt) await handler.resumed?.(db, runId, config);
  } else {
    await db.run.updateMany({ where: { id: runId, status: "queued" }, data: { status: "running", startedAt: run.startedAt ?? new Date() } });
  }
  const claims = new UnitClaims(db, runId, options.executorId ?? defaultExecutorId(), options.unitLeaseSeconds ?? 60);

  await options.endpoints.loadApiKeys(db);
  const abort = new AbortController();
  // Every in-flight request listens on the run's signal: hundreds at once is the design, not a leak.
  setMaxListeners(0, abort.signal);
  const pending = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, requests: 0 };
  const ctx: RunContext<unknown> = {
    db,
    runId,
    config,
    signal: abort.signal,
    endpoints: options.endpoints,
    log,
    recordUsage(usage: TokenUsage, requests = 1) {
      pending.promptTokens += usage.promptTokens;
      pending.completionTokens += usage.completionTokens;
      pending.cachedTokens += usage.cachedPromptTokens;
      pending.requests += requests;
    },
    unflushedCompletionTokens: () => pending.completionTokens,
  };

  // The charts need a point only when something moved; an idle or stalled run adds no rows.
  let lastSample = { unitsDone: run.unitsDone, unitsFailed: run.unitsFailed };
  const flush = async (final = false) => {
    const delta = { ...pending };
    pending.promptTokens = pending.completionTokens = pending.cachedTokens = pending.requests = 0;
    const [done, failed] = await Promise.all([
      db.runUnit.count({ where: { runId, status: "done" } }),
      db.runUnit.count({ where: { runId, status: "failed" } }),
    ]);
    const current = await db.run.update({
      where: { id: runId },
      data: {
        unitsDone: done,
        unitsFailed: failed,
        requests: { increment: delta.requests },
        promptTokens: { increment: delta.promptTokens },
        completionTokens: { increment: delta.completionTokens },
        cachedTokens: { increment: delta.cachedTokens },
      },
      select: { cancelRequestedAt: true, unitsDone: true, unitsFailed: true, requests: true, promptTokens: true, completionTokens: true, cachedTokens: true },
    });
    const { cancelRequestedAt, ...counters } = current;
    if (delta.promptTokens > 0 || delta.completionTokens > 0) await recordRunCost(db, runId, endpoints, counters);
    const progressed = delta.requests > 0 || delta.completionTokens > 0 || done !== lastSample.unitsDone || failed !== lastSample.unitsFailed;
    if (progressed || final) {
      // Several executors of one run flush independently: one chart point per run per ~second is enough,
      // but an executor's last flush always leaves a point, so the chart ends at the run's final counters.
      await db.$executeRaw`
        INSERT INTO "RunProgressSample" ("runId", "unitsDone", "unitsFailed", requests, "promptTokens", "completionTokens", "cachedTokens")
        SELECT ${runId}, ${counters.unitsDone}, ${counters.unitsFailed}, ${counters.requests}, ${counters.promptTokens}, ${counters.completionTokens}, ${counters.cachedTokens}
         WHERE ${final} OR NOT EXISTS (SELECT 1 FROM "RunProgressSample" WHERE "runId" = ${runId} AND at > now() - interval '900 milliseconds')`;
      lastSample = { unitsDone: done, unitsFailed: failed };
    }
    if (cancelRequestedAt && !abort.signal.aborted) abort.abort(new Error("run cancelled"));
  };
  let flushing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    flushing = flushing.then(() => flush()).catch((error: unknown) => log(`[run ${runId}] counters not written: ${(error as Error).message}`));
  }, options.flushIntervalMs ?? 1000);

  const renewal = setInterval(() => {
    claims.renew().catch((error: unknown) => log(`[run ${runId}] unit leases not renewed: ${(error as Error).message}`));
  }, ((options.unitLeaseSeconds ?? 60) * 1000) / 3);
  try {
    if (!run.plannedAt) await planOnce(ctx, handler);
    for (;;) {
      await workUnits(ctx, handler, claims, maxUnitAttempts);
      if (abort.signal.aborted) break;
      // Nothing left to claim: units other executors hold are still outstanding until they finish or their lease runs out.
      if ((await claims.outstanding()) === 0) break;
      const now = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
      if (now.status !== "running") break;
      await sleep(TAIL_POLL_MS, abort.signal);
    }
    clearInterval(renewal);
    clearInterval(timer);
    await flushing;
    await flush(true);
    if (abort.signal.aborted) {
      await claims.releaseAll();
      await endCancelled();
      return;
    }
    await finishOnce(ctx, handler);
  } catch (error) {
    clearInterval(renewal);
    clearInterval(timer);
    await flushing;
    await claims.releaseAll().catch(() => {});
    if (abort.signal.aborted) {
      await flush(true).catch(() => {});
      await endCancelled();
      return;
    }
    throw error; // the queue retries the job; done units stay done
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Holds a run-scoped advisory lock for the duration of `body` (released if this process dies). */
async function withRunLock(db: Db, runId: string, purpose: string, body: () => Promise<void>): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`stepwiser:${purpose}`}), hashtext(${runId}))`;
      await body();
    },
    { timeout: 6 * 3600_000, maxWait: 60_000 },
  );
}

/** Plans the run unless another executor did while this one waited for the lock. */
async function planOnce(ctx: RunContext<unknown>, handler: AnyRunKindHandler): Promise<void> {
  await withRunLock(ctx.db, ctx.runId, "plan", async () => {
    const run = await ctx.db.run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { plannedAt: true } });
    if (!run.plannedAt) await planUnits(ctx, handler);
  });
}

/** Summarises and ends the run, once: executors finishing together queue on the lock, and later ones find it ended. */
async function finishOnce(ctx: RunContext<unknown>, handler: AnyRunKindHandler): Promise<void> {
  const { db, runId } = ctx;
  await withRunLock(db, runId, "finish", async () => {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    if (run.status !== "running") return;
    const summary = handler.summarize ? await handler.summarize(ctx) : undefined;
    const results = handler.resultColumns ? await handler.resultColumns(ctx, summary) : {};
    const failed = await db.runUnit.count({ where: { runId, status: "failed" } });
    const total = await db.runUnit.count({ where: { runId } });
    await db.run.update({ where: { id: runId }, data: { summary: summary === undefined ? undefined : (summary as object), ...results } });
    if (failed > 0 && failed === total) await markRunFinished(db, runId, "failed", `all ${total} units failed`);
    else await markRunFinished(db, runId, failed > 0 ? "completed_with_failures" : "completed");
  });
}

/**
 * Writes the run's units from the handler's plan and marks the run planned; an
 * execution (or a batch export) that finds the run planned works these units.
 */
export async function planUnits(ctx: RunContext<unknown>, handler: AnyRunKindHandler): Promise<void> {
  let position = 0;
  let batch: { runId: string; key: string; position: number }[] = [];
  const write = async () => {
    if (batch.length === 0) return;
    await ctx.db.runUnit.createMany({ data: batch, skipDuplicates: true });
    batch = [];
  };
  for await (const key of handler.plan(ctx)) {
    batch.push({ runId: ctx.runId, key, position: position++ });
    if (batch.length >= PLAN_BATCH) await write();
  }
  await write();
  await ctx.db.run.update({ where: { id: ctx.runId }, data: { plannedAt: new Date(), unitsTotal: position } });
}

async function workUnits(ctx: RunContext<unknown>, handler: AnyRunKindHandler, claims: UnitClaims, maxUnitAttempts: number): Promise<void> {
  const concurrency = Math.max(1, handler.concurrency(ctx.config));
  const local: ClaimedUnit[] = [];
  let exhausted = false;

  // Claims are serialised within the executor: loops refilling at once would claim twice as much as they need.
  let claiming: Promise<unknown> = Promise.resolve();
  const next = () => {
    const result = claiming.then(take);
    claiming = result.catch(() => {});
    return result;
  };
  const take = async (): Promise<ClaimedUnit | undefined> => {
    if (local.length === 0 && !exhausted && !ctx.signal.aborted) {
      const claimed = await claims.claim(Math.min(CLAIM_BATCH, concurrency));
      if (claimed.length === 0) exhausted = true;
      local.push(...claimed);
    }
    return local.shift();
  };

  const workerLoop = async () => {
    for (;;) {
      if (ctx.signal.aborted) return;
      const unit = await next();
      if (!unit) return;
      try {
        const result = await handler.runUnit(ctx, unit.key);
        if (!(await claims.complete(unit, result))) ctx.log(`[run ${ctx.runId}] unit ${unit.key} was taken over by another executor; its result stands`);
      } catch (error) {
        if (ctx.signal.aborted) return; // cancelled: the unit stays pending for a resume
        const message = error instanceof Error ? error.message : String(error);
        const outcome = await claims.fail(unit, message, maxUnitAttempts);
        ctx.log(`[run ${ctx.runId}] unit ${unit.key} ${outcome === "failed" ? "failed" : outcome === "released" ? "will be retried" : "failed after another executor took it over"}: ${message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, workerLoop));
  await claims.release(local.splice(0));
}
