import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, createSimWorldDataset, queueSettingsFromEnv, startWorker, submitRun } from "../src";
import { runJobRole } from "../src/submit-run";
import { waitForRun } from "./helpers";

const EXPIRE_SECONDS = 1;

describe("a run that outlives many job expiries", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  const savedExpiry = process.env.STEPWISER_JOB_EXPIRE_SECONDS;

  beforeAll(async () => {
    // The worker reads its queue policy from the environment, as in a deployment.
    process.env.STEPWISER_JOB_EXPIRE_SECONDS = String(EXPIRE_SECONDS);
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 10 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 4 } });
  });
  afterAll(async () => {
    if (savedExpiry === undefined) delete process.env.STEPWISER_JOB_EXPIRE_SECONDS;
    else process.env.STEPWISER_JOB_EXPIRE_SECONDS = savedExpiry;
    await cluster?.stop();
    await database?.drop();
  });

  it("hands its job on before each expiry: no job of the run is failed or retried, and one execution does the whole run", { timeout: 90_000 }, async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "relay", problems: 12, seed: 3 });
    const worker = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: { workerId: "relay-worker" } });
    try {
      const queue = await connectJobQueue(database.url, queueSettingsFromEnv());
      const run = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: 4, seed: 1, concurrency: 1 } });
      await queue.stop({ graceful: false, wait: true });
      const finished = await waitForRun(db, run.id, 80_000);
      expect(finished.status).toBe("completed");
      const seconds = (finished.finishedAt!.getTime() - finished.startedAt!.getTime()) / 1000;
      // Long enough that, without the hand-over, pg-boss would have failed its job several times.
      expect(seconds).toBeGreaterThan(3 * EXPIRE_SECONDS);
      const jobs = await db.$queryRaw<Array<{ state: string; retry_count: number }>>`
        SELECT state::text AS state, retry_count FROM pgboss.job WHERE name = 'run' AND data->>'runId' = ${run.id}`;
      expect(jobs.length).toBeGreaterThanOrEqual(3);
      expect(jobs.filter((j) => j.state === "failed" || j.state === "retry" || j.retry_count > 0)).toEqual([]);
      expect(finished.attempts).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});

describe("the role a run's job gives its execution", () => {
  it("the first job is a new attempt; a hand-over continues its attempt unless it was retried after its holder died", () => {
    expect(runJobRole({ runId: "r" }, 0)).toBe("primary");
    expect(runJobRole({ runId: "r" }, 2)).toBe("primary");
    expect(runJobRole({ runId: "r", relay: true }, 0)).toBe("helper");
    expect(runJobRole({ runId: "r", relay: true }, 1)).toBe("primary");
    expect(runJobRole({ runId: "r", helper: true }, 0)).toBe("helper");
    expect(runJobRole({ runId: "r", helper: true, relay: true }, 3)).toBe("helper");
  });
});
