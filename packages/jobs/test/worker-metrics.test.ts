import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { liveWorkerCount, startWorker } from "../src";

describe("a worker's registration, /health and /metrics", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("registers while it serves, answers /health and /metrics on its port, and leaves the table when stopped", { timeout: 60_000 }, async () => {
    const worker = await startWorker({
      databaseUrl: database.url,
      db: database.db,
      log: () => {},
      settings: { workerId: "metrics-worker", metricsPort: 0, heartbeatSeconds: 1 },
    });
    try {
      expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await liveWorkerCount(database.db, 1)).toBe(1);
      const health = await fetch(`${worker.metricsUrl}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true, worker: "metrics-worker" });
      const metrics = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
      expect(metrics).toContain('stepwiser_worker_active_runs{worker="metrics-worker"} 0');
      expect(metrics).toContain("# TYPE stepwiser_endpoint_slots gauge");
      expect((await fetch(`${worker.metricsUrl}/nothing`)).status).toBe(404);
    } finally {
      await worker.stop();
    }
    expect(await database.db.workerProcess.count()).toBe(0);
  });

  it("refuses bad settings with the variable's name", async () => {
    const { workerSettingsFromEnv } = await import("../src");
    expect(() => workerSettingsFromEnv({ STEPWISER_UNIT_LEASE_SECONDS: "soon" })).toThrow(/STEPWISER_UNIT_LEASE_SECONDS must be a number ≥ 1, got "soon"/);
    expect(() => workerSettingsFromEnv({ STEPWISER_CAPACITY_LEASE_SECONDS: "1", STEPWISER_CAPACITY_REBALANCE_MS: "500" })).toThrow(/at least 4 ×/);
    expect(() => workerSettingsFromEnv({ STEPWISER_MAX_EXECUTORS_PER_RUN: "1.5" })).toThrow(/integer/);
  });
});
