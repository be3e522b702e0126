import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chunkResetHandler, createSimWorldDataset, EndpointClients, executeRun, RUN_HANDLERS } from "../src";

describe("chunk-reset runs on the simulated world", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    // An error-prone policy, so there is something to reset.
    cluster = await startSimCluster({ models: createSimModels({ "sim-policy": { errorRate: 0.3 } }), replicas: 2, timeScale: 1000 });
    for (const [name, model, role] of [["policy", "sim-policy", "policy"], ["judge", "sim-judge-strong", "judge"]] as const) {
      await database.db.endpoint.create({ data: { name, model, role, baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    }
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it("the judge's resets raise accuracy over plain sampling with the same seeds, and the tokens are counted", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "reset", problems: 40, seed: 500 });
    const config = chunkResetHandler.configSchema.parse({ datasetId, policyEndpoint: "policy", judgeEndpoint: "judge", seed: 2 });
    const run = await db.run.create({ data: { kind: "chunk_reset", config: (await chunkResetHandler.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, RUN_HANDLERS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status).toBe("completed");
    const summary = done.summary as { problems: number; accuracy: { chunkReset: number; plain: number }; tokens: { accepted: number; rejected: number; plain: number }; resetsPerProblem: number };
    expect(summary.problems).toBe(40);
    expect(summary.accuracy.chunkReset).toBeGreaterThan(summary.accuracy.plain);
    expect(summary.tokens.rejected).toBeGreaterThan(0);
    expect(summary.resetsPerProblem).toBeGreaterThan(0);
    const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { result: true } });
    expect(units.every((u) => u.result !== null)).toBe(true);
  });
});
