import { monitorEventLoopDelay } from "node:perf_hooks";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimPolicy, startSimCluster, type SimCluster, type SimModel } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { connectJobQueue, createSimWorldDataset, queueSettingsFromEnv, runGradingSettings, startWorker, submitRun, UnitClaims } from "../src";
import { prefixSeed } from "../src/kinds/annotate/rollouts";
import { waitForRun } from "./helpers";
import { PATHOLOGICAL_ANSWER } from "./pathological-answer";

const RUN_SEED = 5;
const ROLLOUTS = 4;
const LEASE_SECONDS = 2;
const HEARTBEAT_SECONDS = 1;

describe("an annotate run whose rollouts include a pathological answer", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let datasetId: string;
  /** Seeds of the samples the policy answers with the pathological answer. */
  const poisoned = new Set<number>();
  let target: { segmentationId: string; externalId: string };

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const policy = createSimPolicy({ id: "sim-policy" });
    // The simulated policy, except that two samples of one prefix end in an answer the grader cannot finish.
    const poisoning: SimModel = {
      id: "sim-policy",
      generate: (request) => (poisoned.has(request.seed) ? String.raw`Putting it together, the answer is $\boxed{${PATHOLOGICAL_ANSWER}}$.` : policy.generate(request)),
    };
    cluster = await startSimCluster({ models: [poisoning], replicas: 1, timeScale: 500 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 16 } });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "pathological", problems: 4, seed: 11 }));
    const first = await database.db.segmentation.findFirstOrThrow({
      where: { solution: { datasetId } },
      orderBy: { solution: { externalId: "asc" } },
      select: { id: true, solution: { select: { externalId: true } } },
    });
    target = { segmentationId: first.id, externalId: first.solution.externalId };
    const seed = prefixSeed(RUN_SEED, target.externalId, 1);
    poisoned.add(seed).add(seed + 1);
  });
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  it("completes, stores those rollouts as not correct, and the worker's leases, heartbeats and timers keep going meanwhile", { timeout: 120_000 }, async () => {
    const { db } = database;
    const renewals: number[] = [];
    const renew = UnitClaims.prototype.renew;
    const spy = vi.spyOn(UnitClaims.prototype, "renew").mockImplementation(function (this: UnitClaims) {
      renewals.push(performance.now());
      return renew.call(this);
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const worker = await startWorker({
      databaseUrl: database.url,
      db,
      log: () => {},
      // The grading settings are the defaults: two threads, 2000 ms per answer.
      settings: { workerId: "grading-worker", runJoinSeconds: 0, unitLeaseSeconds: LEASE_SECONDS, heartbeatSeconds: HEARTBEAT_SECONDS },
    });
    let heartbeatAgeMs = 0;
    let watching = true;
    try {
      const queue = await connectJobQueue(database.url, queueSettingsFromEnv());
      const run = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: ROLLOUTS, seed: RUN_SEED, concurrency: 2, strategy: "fixed" } });
      await queue.stop({ graceful: false, wait: true });
      delay.enable();
      // How stale the worker's row is, as other workers and the UI see it, all through the run.
      const watcher = (async () => {
        while (watching) {
          const [row] = await db.$queryRaw<{ ms: number }[]>`SELECT (extract(epoch FROM now() - "heartbeatAt") * 1000)::float8 AS ms FROM "WorkerProcess" WHERE id = 'grading-worker'`;
          heartbeatAgeMs = Math.max(heartbeatAgeMs, row?.ms ?? Infinity);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const finished = await waitForRun(db, run.id, 100_000);
      watching = false;
      await watcher;
      delay.disable();

      expect(finished.status).toBe("completed");
      expect(finished.unitsFailed).toBe(0);
      const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { status: true, attempts: true } });
      // Each unit done at its first attempt: none was lost to a lapsed lease or failed over grading.
      expect(units.every((u) => u.status === "done" && u.attempts === 1)).toBe(true);

      const stored = await db.rollout.findMany({ where: { runId: run.id, extractedAnswer: PATHOLOGICAL_ANSWER }, select: { segmentationId: true, prefixLength: true, sampleIndex: true, correct: true } });
      expect(stored).toHaveLength(2);
      expect(stored.map((r) => [r.segmentationId, r.prefixLength, r.sampleIndex, r.correct]).sort()).toEqual([
        [target.segmentationId, 1, 0, false],
        [target.segmentationId, 1, 1, false],
      ]);
      const segmentations = await db.segmentation.findMany({ where: { solution: { datasetId } }, select: { _count: { select: { chunks: true } } } });
      expect(await db.rollout.count({ where: { runId: run.id } })).toBe(segmentations.reduce((n, s) => n + s._count.chunks, 0) * ROLLOUTS);

      // Graded on the main thread, each of those answers would have held it for about a second or more (see run-grading.test.ts).
      expect(delay.max / 1e6).toBeLessThan(500);
      const gaps = renewals.slice(1).map((at, i) => at - renewals[i]!);
      expect(gaps.length).toBeGreaterThan(0);
      expect(Math.max(...gaps)).toBeLessThan(LEASE_SECONDS * 1000);
      expect(heartbeatAgeMs).toBeLessThan(2 * HEARTBEAT_SECONDS * 1000);
    } finally {
      watching = false;
      spy.mockRestore();
      await worker.stop();
    }
    // The worker's stop closed the grading threads.
    expect(runGradingSettings()).toBeNull();
  });
});
