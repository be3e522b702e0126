import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { atScale } from "@stepwiser/config/test-scale";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { connectJobQueue, createSimWorldDataset, isTerminal, liveWorkerCount, queueSettingsFromEnv, submitRun } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Two worker processes already share the run and the endpoint's slots; the full scale starts three. */
const WORKERS = atScale({ default: 2, full: 3 });
/** Units: more than the first executor can hold (two batches of 8), so some are left for every worker that joins. */
const PROBLEMS = atScale({ default: 40, full: 60 });
/** The run only has to last until every worker has joined it (they look every half second). */
const TIME_SCALE = atScale({ default: 8, full: 4 });
const M = 4;
/** Per replica, for every worker together; each worker alone would use more (8 solutions at once, a request per prefix of each). */
const MAX_CONCURRENCY = 5;
const workerEnv = {
  STEPWISER_QUEUE_POLL_SECONDS: "0.5",
  STEPWISER_WORKER_HEARTBEAT_SECONDS: "1",
  STEPWISER_CAPACITY_REBALANCE_MS: "200",
  STEPWISER_CAPACITY_LEASE_SECONDS: "5",
  // The run is a few seconds long: the other workers look for it often enough to join while units are left.
  STEPWISER_RUN_JOIN_SECONDS: "0.5",
  // Read below line by line: one JSON object each.
  STEPWISER_LOG_FORMAT: "json",
};

/** Whether a worker's output holds its "ready" line: `{"level":"info",…,"msg":"ready"}`. */
const saysReady = (output: string) =>
  output.split("\n").some((line) => {
    try {
      return (JSON.parse(line) as { msg?: unknown }).msg === "ready";
    } catch {
      return false;
    }
  });

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

describe(`${WORKERS} worker processes sharing one PostgreSQL`, () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  const children: ChildProcess[] = [];
  /** Each worker's standard output, shown when the work was not shared. */
  const logs: string[] = Array.from({ length: WORKERS }, () => "");

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: TIME_SCALE });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: MAX_CONCURRENCY } });
  });
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map(exited));
    await cluster?.stop();
    await database?.drop();
  });

  it(`annotate: every unit done once, by all ${WORKERS} workers, and no replica ever sees more than the endpoint's limit`, { timeout: 240_000 }, async () => {
    const { db } = database;
    const { datasetId, solutions } = await createSimWorldDataset(db, { name: "scale-out", problems: PROBLEMS, seed: 11 });
    for (let i = 0; i < WORKERS; i++) {
      const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...workerEnv, STEPWISER_WORKER_ID: `worker-${i}`, DATABASE_URL: database.url },
      });
      // Both streams go to the worker's log, so a worker that failed to start says why in the test's failure.
      child.stdout?.setEncoding("utf8").on("data", (text: string) => (logs[i] += text));
      child.stderr?.setEncoding("utf8").on("data", (text: string) => (logs[i] += text));
      children.push(child);
    }
    // A worker registers before its queue and its search for runs to join are up: the run is submitted once
    // every worker says it is ready, so none misses the run however slowly it started.
    for (const deadline = Date.now() + 90_000; !logs.every(saysReady); ) {
      const gone = children.findIndex((child) => child.exitCode !== null || child.signalCode !== null);
      if (gone >= 0 || Date.now() > deadline) {
        const why = gone >= 0 ? `worker-${gone} exited (${children[gone]!.exitCode ?? children[gone]!.signalCode})` : "not ready within 90 s";
        throw new Error(`the workers did not all start: ${why}\n${logs.map((log, i) => `--- worker-${i}\n${log}`).join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const deadline = Date.now() + 30_000; (await liveWorkerCount(db, 1)) < WORKERS; ) {
      if (Date.now() > deadline) throw new Error("the workers did not all register");
      await new Promise((r) => setTimeout(r, 200));
    }

    const queue = await connectJobQueue(database.url, queueSettingsFromEnv({ ...process.env, ...workerEnv }));
    const run = await submitRun(db, queue, {
      kind: "annotate",
      // 8 solutions at once per executor: an executor holds at most two batches of 8 of the PROBLEMS units, so units
      // are left for the workers that join after the first took the run's job.
      config: { datasetId, policyEndpoint: "policy", rollouts: M, seed: 5, concurrency: 8, strategy: "fixed" },
    });
    await queue.stop({ graceful: false, wait: true });

    let finished = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    for (const deadline = Date.now() + 180_000; !isTerminal(finished.status); ) {
      if (Date.now() > deadline) throw new Error(`run still ${finished.status} (${finished.unitsDone}/${finished.unitsTotal})`);
      await new Promise((r) => setTimeout(r, 250));
      finished = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    }
    expect(finished.status).toBe("completed");

    // Exactly one result per unit: every unit done, every rollout and value stored once.
    const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { status: true, claimedBy: true, attempts: true } });
    expect(units).toHaveLength(solutions);
    expect(units.every((u) => u.status === "done" && u.attempts === 1)).toBe(true);
    const chunkTotal = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    expect(await db.rollout.count({ where: { runId: run.id } })).toBe(chunkTotal * M);
    expect(await db.rollout.groupBy({ by: ["segmentationId", "prefixLength", "sampleIndex"], where: { runId: run.id } })).toHaveLength(chunkTotal * M);
    expect(await db.chunkValue.count({ where: { runId: run.id } })).toBe(chunkTotal + solutions);
    for (const rule of ["abs_q", "rel_ratio", "rel_effective"] as const) {
      expect(await db.chunkLabel.count({ where: { runId: run.id, rule } })).toBe(chunkTotal);
    }

    // The work was shared: units were claimed by executors in each of the workers.
    const byWorker = new Set(units.map((u) => u.claimedBy?.split("/")[0]));
    expect([...byWorker].sort(), `workers' logs:\n${logs.join("\n")}`).toEqual(Array.from({ length: WORKERS }, (_, i) => `worker-${i}`));

    // The simulated replicas' own counters: one request per prefix (nothing sent twice), and never more
    // than the endpoint's limit open at once on a replica, although the workers together wanted more.
    const replicaMetrics = cluster.replicas.map((r) => r.metrics());
    expect(replicaMetrics.reduce((sum, m) => sum + m.requests, 0)).toBe(chunkTotal);
    // The run's own counter: each executor adds its requests at its next flush, so the last units'
    // requests of the other executors arrive within a flush interval of the run's completion.
    let counted = finished.requests;
    for (const deadline = Date.now() + 10_000; counted < chunkTotal && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      counted = (await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { requests: true } })).requests;
    }
    expect(counted).toBe(chunkTotal);
    for (const m of replicaMetrics) expect(m.peakOpenRequests).toBeLessThanOrEqual(MAX_CONCURRENCY);
    expect(Math.max(...replicaMetrics.map((m) => m.peakOpenRequests))).toBe(MAX_CONCURRENCY);

    // Workers give their slots back when idle, and leave the worker table when stopped.
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map(exited));
    expect(children.map((c) => c.exitCode)).toEqual(Array.from({ length: WORKERS }, () => 0));
    expect(await db.endpointCapacityLease.count()).toBe(0);
    expect(await db.workerProcess.count()).toBe(0);
  });
});
