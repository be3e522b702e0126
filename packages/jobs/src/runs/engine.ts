import { setMaxListeners } from "node:events";
import type { Db } from "@stepwiser/db";
import type { TokenUsage } from "@stepwiser/inference";
import type { EndpointClients } from "../inference/endpoint-clients";
import { markRunFinished } from "./run-state";
import type { AnyRunKindHandler, RunContext } from "./run-kind";

export interface EngineOptions {
  endpoints: EndpointClients;
  log?: (line: string) => void;
  /** Attempts per unit before it is marked failed (the run goes on). */
  maxUnitAttempts?: number;
  /** How often counters are written and cancellation is checked. */
  flushIntervalMs?: number;
}

const PLAN_BATCH = 500;
const PAGE = 200;

/**
 * Executes (or resumes) one run: plans its units once, works the pending ones
 * with the kind's concurrency, keeps the live counters, honours cancellation,
 * and ends the run completed, completed_with_failures, failed or cancelled.
 */
export async function executeRun(db: Db, runId: string, handlers: ReadonlyMap<string, AnyRunKindHandler>, options: EngineOptions): Promise<void> {
  const log = options.log ?? (() => {});
  const maxUnitAttempts = options.maxUnitAttempts ?? 3;
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  if (run.status !== "queued" && run.status !== "running") return; // finished or cancelled meanwhile
  const handler = handlers.get(run.kind);
  if (!handler) {
    await markRunFinished(db, runId, "failed", `no handler for run kind ${run.kind}`);
    return;
  }
  const parsed = handler.configSchema.safeParse(run.config);
  if (!parsed.success) {
    await markRunFinished(db, runId, "failed", `invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    return;
  }
  if (run.cancelRequestedAt) {
    await markRunFinished(db, runId, "cancelled");
    return;
  }
  await db.run.update({ where: { id: runId }, data: { status: "running", startedAt: run.startedAt ?? new Date(), attempts: { increment: 1 }, error: null } });

  await options.endpoints.loadApiKeys(db);
  const abort = new AbortController();
  // Every in-flight request listens on the run's signal: hundreds at once is the design, not a leak.
  setMaxListeners(0, abort.signal);
  const pending = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, requests: 0 };
  const ctx: RunContext<unknown> = {
    db,
    runId,
    config: parsed.data,
    signal: abort.signal,
    endpoints: options.endpoints,
    log,
    recordUsage(usage: TokenUsage, requests = 1) {
      pending.promptTokens += usage.promptTokens;
      pending.completionTokens += usage.completionTokens;
      pending.cachedTokens += usage.cachedPromptTokens;
      pending.requests += requests;
    },
  };

  // The charts need a point only when something moved; an idle or stalled run adds no rows.
  let lastSample = { unitsDone: run.unitsDone, unitsFailed: run.unitsFailed };
  const flush = async () => {
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
    const progressed = delta.requests > 0 || delta.completionTokens > 0 || done !== lastSample.unitsDone || failed !== lastSample.unitsFailed;
    if (progressed) {
      await db.runProgressSample.create({ data: { runId, ...counters } });
      lastSample = { unitsDone: done, unitsFailed: failed };
    }
    if (cancelRequestedAt && !abort.signal.aborted) abort.abort(new Error("run cancelled"));
  };
  let flushing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    flushing = flushing.then(flush).catch((error: unknown) => log(`[run ${runId}] counters not written: ${(error as Error).message}`));
  }, options.flushIntervalMs ?? 1000);

  try {
    if (!run.plannedAt) await planUnits(ctx, handler);
    await workUnits(ctx, handler, maxUnitAttempts);
    clearInterval(timer);
    await flushing;
    await flush();
    if (abort.signal.aborted) {
      await markRunFinished(db, runId, "cancelled");
      return;
    }
    const summary = handler.summarize ? await handler.summarize(ctx) : undefined;
    const failed = await db.runUnit.count({ where: { runId, status: "failed" } });
    const total = await db.runUnit.count({ where: { runId } });
    await db.run.update({ where: { id: runId }, data: { summary: summary === undefined ? undefined : (summary as object) } });
    if (failed > 0 && failed === total) await markRunFinished(db, runId, "failed", `all ${total} units failed`);
    else await markRunFinished(db, runId, failed > 0 ? "completed_with_failures" : "completed");
  } catch (error) {
    clearInterval(timer);
    await flushing;
    if (abort.signal.aborted) {
      await flush().catch(() => {});
      await markRunFinished(db, runId, "cancelled");
      return;
    }
    throw error; // the queue retries the job; done units stay done
  }
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

async function workUnits(ctx: RunContext<unknown>, handler: AnyRunKindHandler, maxUnitAttempts: number): Promise<void> {
  const concurrency = Math.max(1, handler.concurrency(ctx.config));
  let afterPosition = -1;
  let exhausted = false;
  const queue: { id: string; key: string; attempts: number }[] = [];
  const retry: { id: string; key: string; attempts: number }[] = [];

  // Paging is serialised: two workers refilling at once would take the same page.
  let paging: Promise<unknown> = Promise.resolve();
  const next = () => {
    const result = paging.then(take);
    paging = result.catch(() => {});
    return result;
  };
  const take = async () => {
    if (queue.length === 0 && !exhausted) {
      const page = await ctx.db.runUnit.findMany({
        where: { runId: ctx.runId, status: "pending", position: { gt: afterPosition } },
        orderBy: { position: "asc" },
        take: PAGE,
        select: { id: true, key: true, attempts: true, position: true },
      });
      if (page.length < PAGE) exhausted = true;
      if (page.length) afterPosition = page[page.length - 1]!.position;
      queue.push(...page);
    }
    return queue.shift() ?? retry.shift();
  };

  const workerLoop = async () => {
    for (;;) {
      if (ctx.signal.aborted) return;
      const unit = await next();
      if (!unit) return;
      try {
        const result = await handler.runUnit(ctx, unit.key);
        await ctx.db.runUnit.update({
          where: { id: unit.id },
          data: { status: "done", attempts: { increment: 1 }, error: null, ...(result === undefined ? {} : { result: result as object }) },
        });
      } catch (error) {
        if (ctx.signal.aborted) return; // cancelled: the unit stays pending for a resume
        const attempts = unit.attempts + 1;
        const message = error instanceof Error ? error.message : String(error);
        const failed = attempts >= maxUnitAttempts;
        await ctx.db.runUnit.update({ where: { id: unit.id }, data: { attempts, error: message.slice(0, 2000), status: failed ? "failed" : "pending" } });
        ctx.log(`[run ${ctx.runId}] unit ${unit.key} ${failed ? "failed" : "will be retried"}: ${message}`);
        if (!failed) retry.push({ ...unit, attempts });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, workerLoop));
}
