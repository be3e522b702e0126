import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { aggregateSolutionScore, bestOfNHandler, createSimWorldDataset, EndpointClients, executeRun, pickBest, RUN_HANDLERS } from "../src";

describe("best-of-N selection", () => {
  it("aggregates chunk scores by mean, min or last and picks the first best", () => {
    expect(aggregateSolutionScore([1, 0.5, 0], "mean")).toBe(0.5);
    expect(aggregateSolutionScore([1, 0.5, 0.25], "min")).toBe(0.25);
    expect(aggregateSolutionScore([1, 0.5, 0.25], "last")).toBe(0.25);
    expect(pickBest([0.2, 0.9, 0.9, 0.1])).toBe(1);
  });

  describe("on the simulated world", () => {
    let database: TestDatabase;
    let cluster: SimCluster;
    let endpoints: EndpointClients;
    beforeAll(async () => {
      database = await createTestDatabase(inject("postgresAdminUrl"));
      cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
      await database.db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
      endpoints = new EndpointClients();
    });
    afterAll(async () => {
      await endpoints?.close();
      await cluster?.stop();
      await database?.drop();
    });

    it("a strong judge's pick beats a random pick; every chunk of every solution is judged once", async () => {
      const { db } = database;
      const { datasetId } = await createSimWorldDataset(db, { name: "bon", problems: 40, solutionsPerProblem: 6, seed: 300, errorRate: 0.25 });
      const config = bestOfNHandler.configSchema.parse({ datasetId, judgeEndpoint: "judge", seed: 1 });
      const run = await db.run.create({ data: { kind: "best_of_n", config: (await bestOfNHandler.snapshot(db, config)) as object, datasetId } });
      await executeRun(db, run.id, RUN_HANDLERS, { endpoints });
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(done.status).toBe("completed");
      const chunks = await db.chunk.count({ where: { segmentation: { trajectory: { datasetId } } } });
      expect(await db.judgeSample.count({ where: { runId: run.id } })).toBe(chunks);
      const summary = done.summary as { problems: number; accuracy: Record<string, number> };
      expect(summary.problems).toBe(40);
      expect(summary.accuracy.mean).toBeGreaterThan(summary.accuracy.random!);
      expect(summary.accuracy.mean).toBeLessThanOrEqual(summary.accuracy.oracle!);
    });
  });
});
