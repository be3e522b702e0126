import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createSimWorldDataset, EndpointClients, executeRun, judgeKind, UNIT_RUN_KINDS } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter } from "../src";

describe("run observability", () => {
  let database: TestDatabase;
  let failing: SimCluster;
  let endpoints: EndpointClients;
  let caller: ReturnType<typeof appRouter.createCaller>;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    // Every request answers 500: each unit exhausts its attempts and fails with the server's error.
    failing = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000, faults: { error5xxRate: 1 } });
    await database.db.endpoint.create({ data: { name: "broken-judge", model: "sim-judge-strong", role: "judge", baseUrls: [...failing.urls], maxConcurrency: 8 } });
    endpoints = new EndpointClients({ timeouts: { connectMs: 5000, headersMs: 10_000 } });
    caller = appRouter.createCaller({ db: database.db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
  });
  afterAll(async () => {
    await endpoints?.close();
    await failing?.stop();
    await database?.drop();
  });

  it("lists failed units with their error and the solution they were about", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "failing", problems: 3, seed: 5 });
    const config = judgeKind.submitSchema.parse({ datasetId, judgeEndpoint: "broken-judge", samples: 1 });
    const run = await db.run.create({ data: { kind: "judge", config: (await judgeKind.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints, maxUnitAttempts: 1 });
    const solutions = await db.solution.findMany({ where: { datasetId }, select: { id: true, externalId: true } });

    const result = await caller.run.failures({ id: run.id });
    expect(result.total).toBe(solutions.length);
    for (const unit of result.units) {
      expect(unit.status).toBe("failed");
      expect(unit.error).toMatch(/500|server error/i);
    }
    expect(result.units.map((u) => u.solution?.externalId).sort()).toEqual(solutions.map((s) => s.externalId).sort());
  });

  it("returns progress at most `points` long, keeping each bucket's last sample, with rates between points", async () => {
    const { db } = database;
    const run = await db.run.create({ data: { kind: "judge", config: {}, status: "completed" } });
    const start = Date.UTC(2026, 0, 1);
    // 1,000 samples one second apart: 10 units and 500 tokens per second.
    await db.runProgressSample.createMany({
      data: Array.from({ length: 1000 }, (_, i) => ({
        runId: run.id,
        at: new Date(start + i * 1000),
        unitsDone: 10 * (i + 1),
        unitsFailed: 0,
        requests: 20 * (i + 1),
        promptTokens: BigInt(900 * (i + 1)),
        completionTokens: BigInt(500 * (i + 1)),
        cachedTokens: 0n,
      })),
    });
    const { points } = await caller.run.progress({ id: run.id, points: 50 });
    expect(points.length).toBeLessThanOrEqual(50);
    expect(points.length).toBeGreaterThan(40);
    expect(points.at(-1)).toMatchObject({ unitsDone: 10_000, completionTokens: 500_000 });
    expect(points[0]!.tokensPerSecond).toBeNull();
    for (const point of points.slice(1)) {
      expect(point.tokensPerSecond).toBeCloseTo(500, 6);
      expect(point.unitsPerSecond).toBeCloseTo(10, 6);
    }
    expect((await caller.run.progress({ id: "no-such-run" })).points).toEqual([]);
  });

  it("describes every launchable kind's configuration with its defaults and without the fields the server fills", async () => {
    const kinds = await caller.run.schemas();
    const annotate = kinds.find((k) => k.kind === "annotate")!.schema as { properties: Record<string, { default?: unknown }>; required: string[] };
    expect(annotate.properties.rollouts?.default).toBe(16);
    expect(annotate.properties.policy).toBeUndefined();
    expect(annotate.required).toEqual(expect.arrayContaining(["datasetId", "policyEndpoint"]));
    expect(kinds.map((k) => k.kind).sort()).toEqual(["annotate", "benchmark", "best_of_n", "chunk_reset", "generate", "judge", "segment"]);
  });
});
