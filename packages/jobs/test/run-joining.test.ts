import type { Db } from "@stepwiser/db";
import { atScale } from "@stepwiser/config/test-scale";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, createSimWorldDataset, queueSettingsFromEnv, startWorker, submitRun } from "../src";
import { joinableRuns } from "../src/worker/run-joining";
import { waitForRun } from "./helpers";

/** Problems of the run a second worker joins: with one unit at a time, the late worker starts with at least six left. */
const JOIN_PROBLEMS = atScale({ default: 10, full: 16 });
/**
 * Problems of each of the two runs queued one after another: three units one at a time already outlast
 * the second run job's pick-up (half a second) several times over.
 */
const SIDE_BY_SIDE_PROBLEMS = atScale({ default: 3, full: 6 });

describe("runs a worker can join", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** A run with `free` unclaimed pending units and one live claim per name in `heldBy`. */
  async function runWith(db: Db, options: { status?: "queued" | "running" | "completed"; planned?: boolean; cancelling?: boolean; free?: number; expiredClaims?: number; heldBy?: string[] }) {
    const run = await db.run.create({
      data: {
        kind: "judge",
        config: {},
        status: options.status ?? "running",
        plannedAt: options.planned === false ? null : new Date(),
        cancelRequestedAt: options.cancelling ? new Date() : null,
      },
    });
    let position = 0;
    const unit = () => ({ runId: run.id, key: `u${position}`, position: position++ });
    const soon = new Date(Date.now() + 60_000);
    const past = new Date(Date.now() - 1_000);
    await db.runUnit.createMany({
      data: [
        ...Array.from({ length: options.free ?? 0 }, unit),
        ...Array.from({ length: options.expiredClaims ?? 0 }, () => ({ ...unit(), claimedBy: "gone/executor", leaseExpiresAt: past })),
        ...(options.heldBy ?? []).map((executor) => ({ ...unit(), claimedBy: executor, leaseExpiresAt: soon })),
        { ...unit(), status: "done" as const, claimedBy: "w/done" },
      ],
    });
    return run.id;
  }

  it("only running, planned runs with units nobody holds, not being cancelled, under the executor cap", async () => {
    const { db } = database;
    const open = await runWith(db, { free: 3, heldBy: ["w1/a"] });
    const takenOver = await runWith(db, { expiredClaims: 2, heldBy: ["w1/a"] });
    const allHeld = await runWith(db, { heldBy: ["w1/a", "w2/b"] });
    const unplanned = await runWith(db, { planned: false, free: 3 });
    const cancelling = await runWith(db, { cancelling: true, free: 3 });
    const queued = await runWith(db, { status: "queued", free: 3 });
    const finished = await runWith(db, { status: "completed", free: 3 });
    const crowded = await runWith(db, { free: 3, heldBy: ["w1/a", "w2/b", "w2/b"] });
    void [allHeld, unplanned, cancelling, queued, finished];

    expect(new Set(await joinableRuns(db, { excludeRunIds: [], maxExecutorsPerRun: 0 }))).toEqual(new Set([open, takenOver, crowded]));
    expect(new Set(await joinableRuns(db, { excludeRunIds: [open], maxExecutorsPerRun: 0 }))).toEqual(new Set([takenOver, crowded]));
    // "crowded" has two executors holding units (one holds two): at the cap of 2 it takes no third.
    expect(new Set(await joinableRuns(db, { excludeRunIds: [], maxExecutorsPerRun: 2 }))).toEqual(new Set([open, takenOver]));
    expect(new Set(await joinableRuns(db, { excludeRunIds: [], maxExecutorsPerRun: 3 }))).toEqual(new Set([open, takenOver, crowded]));
  });
});

describe("workers and the runs going on", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 10 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 4 } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  it("a worker started while a run is going joins it by looking for work, and the run ends with every unit done once", { timeout: 120_000 }, async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "join", problems: JOIN_PROBLEMS, seed: 5 });
    // The first worker never looks for work: it runs the run through its own job, alone at the start.
    const early = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: { workerId: "early", runJoinSeconds: 0 } });
    let late: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      const queue = await connectJobQueue(database.url, queueSettingsFromEnv());
      const run = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: 4, seed: 2, concurrency: 1 } });
      await queue.stop({ graceful: false, wait: true });
      for (;;) {
        const { unitsDone, unitsTotal, status } = await db.run.findUniqueOrThrow({ where: { id: run.id } });
        expect(status).not.toBe("completed"); // the run must still be going when the second worker starts
        if (unitsDone >= 1 && unitsTotal - unitsDone >= 6) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const helperJobs = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pgboss.job WHERE name = 'run' AND data->>'helper' = 'true'`;
      expect(Number(helperJobs[0]!.n)).toBe(0);

      late = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: { workerId: "late", runJoinSeconds: 0.2 } });
      const finished = await waitForRun(db, run.id, 100_000);
      expect(finished.status).toBe("completed");

      const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { status: true, claimedBy: true, attempts: true } });
      expect(units.every((u) => u.status === "done" && u.attempts === 1)).toBe(true);
      const byWorker = (name: string) => units.filter((u) => u.claimedBy?.startsWith(`${name}/`)).length;
      expect(byWorker("early")).toBeGreaterThan(0);
      expect(byWorker("late")).toBeGreaterThan(0);
      expect(byWorker("early") + byWorker("late")).toBe(units.length);
      // Exactly the rows the configuration implies: M rollouts for each prefix 0..k-1, one value per prefix 0..k.
      const segmentations = await db.segmentation.findMany({ where: { solution: { datasetId } }, select: { _count: { select: { chunks: true } } } });
      const chunkTotal = segmentations.reduce((n, s) => n + s._count.chunks, 0);
      expect(units.length).toBe(segmentations.length);
      expect(await db.rollout.count({ where: { runId: run.id } })).toBe(chunkTotal * 4);
      expect(await db.chunkValue.count({ where: { runId: run.id } })).toBe(chunkTotal + segmentations.length);
    } finally {
      await late?.stop();
      await early.stop();
    }
  });
  async function startTimes(runJobsPerWorker: number) {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: `side-by-side-${runJobsPerWorker}`, problems: SIDE_BY_SIDE_PROBLEMS, seed: 8 });
    const worker = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: { workerId: `slots-${runJobsPerWorker}`, runJobsPerWorker, runJoinSeconds: 0 } });
    try {
      const queue = await connectJobQueue(database.url, queueSettingsFromEnv());
      const config = { datasetId, policyEndpoint: "policy", rollouts: 4, concurrency: 1 };
      const first = await submitRun(db, queue, { kind: "annotate", config: { ...config, seed: 1 } });
      const second = await submitRun(db, queue, { kind: "annotate", config: { ...config, seed: 2 } });
      await queue.stop({ graceful: false, wait: true });
      const [a, b] = [await waitForRun(db, first.id, 100_000), await waitForRun(db, second.id, 100_000)];
      expect([a.status, b.status]).toEqual(["completed", "completed"]);
      return { firstFinished: a.finishedAt!.getTime(), secondStarted: b.startedAt!.getTime() };
    } finally {
      await worker.stop();
    }
  }

  it("runs queued one after another execute side by side on one worker: the second starts before the first ends (with one run job at a time, it waits)", { timeout: 120_000 }, async () => {
    const sideBySide = await startTimes(2);
    expect(sideBySide.secondStarted).toBeLessThan(sideBySide.firstFinished);
    const oneAtATime = await startTimes(1);
    expect(oneAtATime.secondStarted).toBeGreaterThanOrEqual(oneAtATime.firstFinished);
  });
});
