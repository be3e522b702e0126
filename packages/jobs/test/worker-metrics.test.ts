import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { EndpointPool, InferenceClient, type RequestObservation } from "@stepwiser/inference";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { register as globalRegistry } from "prom-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, createSimWorldDataset, liveWorkerCount, queueSettingsFromEnv, startWorker, submitRun, WorkerMetrics } from "../src";
import { waitForRun } from "./helpers";

/** The value of the one sample of `name` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([^{\s]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if (Object.entries(labels).every(([key, value]) => match[2]!.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return undefined;
}

describe("a worker's registration, /health and /metrics", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 200 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 4 } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  it("registers while it serves, answers /health and prom-client's /metrics on its port, and leaves the table when stopped", { timeout: 60_000 }, async () => {
    const { db } = database;
    const lines: string[] = [];
    const worker = await startWorker({
      databaseUrl: database.url,
      db,
      log: (line) => lines.push(line),
      settings: { workerId: "metrics-worker", metricsPort: 0, heartbeatSeconds: 1, runJoinSeconds: 0 },
    });
    try {
      expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await liveWorkerCount(db, 1)).toBe(1);
      const health = await fetch(`${worker.metricsUrl}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true, worker: "metrics-worker" });

      const before = await fetch(`${worker.metricsUrl}/metrics`);
      expect(before.headers.get("content-type")).toBe(globalRegistry.contentType);
      expect(before.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const idle = await before.text();
      // The names and labels the hand-written page had, so dashboards keep working.
      expect(idle).toContain('stepwiser_worker_active_runs{worker="metrics-worker"} 0');
      expect(idle).toContain("# TYPE stepwiser_worker_jobs_total counter");
      expect(idle).toContain("# TYPE stepwiser_endpoint_slots gauge");
      // prom-client's process metrics and the queues' depth, every sample with the worker's id.
      expect(sample(idle, "process_cpu_seconds_total", { worker: "metrics-worker" })).toBeGreaterThan(0);
      expect(sample(idle, "stepwiser_queue_depth", { worker: "metrics-worker", queue: "run" })).toBeGreaterThanOrEqual(0);
      expect(sample(idle, "stepwiser_queue_active", { worker: "metrics-worker", queue: "import" })).toBeGreaterThanOrEqual(0);
      expect(idle).toContain("# TYPE stepwiser_inference_request_duration_seconds histogram");
      expect((await fetch(`${worker.metricsUrl}/nothing`)).status).toBe(404);

      // One run on the simulated cluster: each of its inference requests is observed once, by endpoint and outcome.
      const { datasetId } = await createSimWorldDataset(db, { name: "metrics", problems: 1, seed: 2 });
      const queue = await connectJobQueue(database.url, queueSettingsFromEnv());
      const run = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: 2, seed: 1, concurrency: 1 } });
      await queue.stop({ graceful: false, wait: true });
      expect((await waitForRun(db, run.id, 30_000)).status).toBe("completed");
      // The execution ends (counted, logged) a moment after the run is marked completed.
      await expect.poll(() => lines.some((line) => line.includes('"msg":"run done"')), { timeout: 5_000 }).toBe(true);
      const requests = cluster.replicas[0]!.metrics().requests;
      expect(requests).toBeGreaterThan(0);

      const after = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
      const ok = { worker: "metrics-worker", endpoint: "policy", outcome: "ok" };
      expect(sample(after, "stepwiser_inference_request_duration_seconds_count", ok)).toBe(requests);
      expect(sample(after, "stepwiser_inference_request_duration_seconds_bucket", { ...ok, le: "+Inf" })).toBe(requests);
      expect(sample(after, "stepwiser_inference_request_duration_seconds_sum", ok)).toBeGreaterThan(0);
      expect(sample(after, "stepwiser_worker_jobs_total", { worker: "metrics-worker", queue: "run" })).toBe(1);
      expect(sample(after, "stepwiser_endpoint_in_flight", { worker: "metrics-worker", endpoint: "policy", replica: cluster.urls[0]! })).toBe(0);
      expect(sample(after, "stepwiser_endpoint_limit", { worker: "metrics-worker", endpoint: "policy", replica: cluster.urls[0]! })).toBe(4);

      // The run's lines, as its job logged them: JSON carrying the run, the job and the worker.
      const runLines = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.runId === run.id);
      expect(runLines.map((entry) => entry.msg)).toEqual(expect.arrayContaining(["run started", "run done"]));
      for (const entry of runLines) {
        expect(entry).toMatchObject({ level: expect.stringMatching(/^(info|warn)$/), name: "worker", workerId: "metrics-worker", runId: run.id, jobId: expect.any(String) });
      }
    } finally {
      await worker.stop();
    }
    expect(await db.workerProcess.count()).toBe(0);
  });

  it("refuses bad settings with the variable's name", async () => {
    const { workerSettingsFromEnv } = await import("../src");
    expect(() => workerSettingsFromEnv({ STEPWISER_UNIT_LEASE_SECONDS: "soon" })).toThrow(/STEPWISER_UNIT_LEASE_SECONDS must be a number ≥ 1, got "soon"/);
    expect(() => workerSettingsFromEnv({ STEPWISER_CAPACITY_LEASE_SECONDS: "1", STEPWISER_CAPACITY_REBALANCE_MS: "500" })).toThrow(/at least 4 ×/);
    expect(() => workerSettingsFromEnv({ STEPWISER_MAX_EXECUTORS_PER_RUN: "1.5" })).toThrow(/integer/);
  });
});

describe("worker metrics registries", () => {
  it("are one per worker: two in one process keep their own samples, and the global registry stays empty", async () => {
    const source = (workerId: string, activeRuns: number) => ({ workerId, activeRuns: () => activeRuns, replicaStatus: () => [] });
    const first = new WorkerMetrics(source("first", 1));
    const second = new WorkerMetrics(source("second", 2));
    first.jobDone("import");
    first.observeRequest("judge", { outcome: "timeout", latencyMs: 1500, attempts: 6 });
    const [a, b] = await Promise.all([first.render(), second.render()]);
    expect(sample(a, "stepwiser_worker_active_runs", { worker: "first" })).toBe(1);
    expect(sample(b, "stepwiser_worker_active_runs", { worker: "second" })).toBe(2);
    expect(sample(a, "stepwiser_worker_jobs_total", { worker: "first", queue: "import" })).toBe(1);
    expect(sample(b, "stepwiser_worker_jobs_total", { queue: "import" })).toBeUndefined();
    expect(sample(a, "stepwiser_inference_request_duration_seconds_bucket", { endpoint: "judge", outcome: "timeout", le: "2.5" })).toBe(1);
    expect(sample(a, "stepwiser_inference_request_duration_seconds_bucket", { endpoint: "judge", outcome: "timeout", le: "1" })).toBe(0);
    // No queue source: the queue gauges are declared with no samples.
    expect(a).toContain("# TYPE stepwiser_queue_depth gauge");
    expect(sample(a, "stepwiser_queue_depth", {})).toBeUndefined();
    expect(globalRegistry.getMetricsAsArray()).toEqual([]);
  });

  it("the inference client reports a request that failed for good with its failure's kind", async () => {
    const observations: RequestObservation[] = [];
    // Nothing listens on port 1: the connection is refused at once.
    const client = new InferenceClient(new EndpointPool([{ baseUrl: "http://127.0.0.1:1/v1", maxInFlight: 1 }]), { retry: { maxAttempts: 1 }, onRequest: (o) => observations.push(o) });
    try {
      await expect(client.generate({ model: "m", prompt: { kind: "completion", prompt: "x" } })).rejects.toThrow();
    } finally {
      await client.endpoints.close();
    }
    expect(observations).toEqual([{ outcome: "connection", latencyMs: expect.any(Number), attempts: 1 }]);
  });
});
