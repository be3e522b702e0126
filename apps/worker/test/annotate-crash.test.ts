import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { atScale } from "@stepwiser/config/test-scale";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { connectJobQueue, createSimWorldDataset, isTerminal, queueSettingsFromEnv, submitRun } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const queueEnv = {
  STEPWISER_JOB_EXPIRE_SECONDS: "3",
  STEPWISER_QUEUE_MAINTENANCE_SECONDS: "1",
  STEPWISER_QUEUE_POLL_SECONDS: "0.5",
  // Ten crashes (at full scale) must not exhaust the job's retries.
  STEPWISER_JOB_RETRY_LIMIT: "50",
  // A killed worker's claimed units and endpoint slots come back this fast.
  STEPWISER_UNIT_LEASE_SECONDS: "3",
  STEPWISER_CAPACITY_LEASE_SECONDS: "2",
  STEPWISER_CAPACITY_REBALANCE_MS: "200",
  // A restarted worker finds the run by the units nobody holds: it looks this often.
  STEPWISER_RUN_JOIN_SECONDS: "0.5",
};
/** Two crashes already make a retried run crash again; the full scale crashes it ten times. */
const KILLS = atScale({ default: 2, full: 10 });
const PROBLEMS = atScale({ default: 10, full: 30 });
const M = 8;
/**
 * Each kill lands once the run has stored a seeded random share of its rollouts (and the worker some of
 * its own): a random point inside the work wherever the machine's speed puts it, and never after the end.
 */
const KILL_SHARE = { min: 0.05, max: 0.75 };
/** The kills follow the run's progress, not the clock: the default scale runs the cluster four times as fast. */
const TIME_SCALE = atScale({ default: 16, full: 4 });

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

describe("worker killed with SIGKILL again and again during an annotate run", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: TIME_SCALE });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 32 } });
  });
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map(exited));
    await cluster?.stop();
    await database?.drop();
  });

  const startWorker = () => {
    const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
      cwd: repoRoot,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, ...queueEnv, DATABASE_URL: database.url },
    });
    children.push(child);
    return child;
  };

  it("completes with exactly one stored rollout per (prefix, sample index)", { timeout: 240_000 }, async () => {
    const { db } = database;
    const { datasetId, solutions } = await createSimWorldDataset(db, { name: "crash", problems: PROBLEMS, seed: 7 });
    const queue = await connectJobQueue(database.url, queueSettingsFromEnv({ ...process.env, ...queueEnv }));
    const run = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: M, seed: 3, concurrency: 3 } });
    await queue.stop({ graceful: false, wait: true });
    const chunkTotal = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });

    let kills = 0;
    // Kills that hit a worker in the middle of the run's work: it had written rollouts of its own.
    let midWork = 0;
    let random = 12345;
    const nextShare = () => {
      random = (random * 1103515245 + 12345) % 2 ** 31;
      return KILL_SHARE.min + (random / 2 ** 31) * (KILL_SHARE.max - KILL_SHARE.min);
    };
    const thresholds = Array.from({ length: KILLS }, () => Math.ceil(chunkTotal * M * nextShare())).sort((a, b) => a - b);
    const rollouts = () => db.rollout.count({ where: { runId: run.id } });
    const ended = async () => isTerminal((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status);
    while (kills < KILLS) {
      const worker = startWorker();
      const before = await rollouts();
      const threshold = thresholds[kills]!;
      // Start-up takes longer on a loaded machine: never kill a worker before it is at work.
      for (const deadline = Date.now() + 90_000; Date.now() < deadline && !(await ended()); ) {
        const stored = await rollouts();
        if (stored >= threshold && stored > before) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const progress = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (isTerminal(progress.status)) break;
      if ((await rollouts()) > before) midWork += 1;
      worker.kill("SIGKILL");
      await exited(worker);
      kills += 1;
    }
    expect(kills).toBe(KILLS);
    expect(midWork).toBe(KILLS);

    startWorker();
    let finished = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    for (const deadline = Date.now() + 150_000; !isTerminal(finished.status); ) {
      if (Date.now() > deadline) throw new Error(`run still ${finished.status} (${finished.unitsDone}/${finished.unitsTotal})`);
      await new Promise((r) => setTimeout(r, 250));
      finished = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    }
    expect(finished.status).toBe("completed");
    // The run went on after every crash (its job retried, or a restarted worker joining it by the units
    // nobody held) and finished with exact counts below, although each kill interrupted a worker at work.
    expect(finished.unitsDone).toBe(solutions);

    expect(await db.rollout.count({ where: { runId: run.id } })).toBe(chunkTotal * M);
    const distinct = await db.rollout.groupBy({ by: ["segmentationId", "prefixLength", "sampleIndex"], where: { runId: run.id } });
    expect(distinct).toHaveLength(chunkTotal * M);
    expect(await db.chunkValue.count({ where: { runId: run.id } })).toBe(chunkTotal + solutions);
    expect(await db.chunkLabel.count({ where: { runId: run.id, rule: "abs_q" } })).toBe(chunkTotal);
    expect(await db.runUnit.count({ where: { runId: run.id, status: "done" } })).toBe(solutions);
  });
});
