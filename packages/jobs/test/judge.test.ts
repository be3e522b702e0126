import { majorityVerdict, type Verdict } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSimWorldDataset, EndpointClients, executeRun, judgeHandler, RUN_HANDLERS } from "../src";

describe("judge runs", () => {
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

  it("keeps K rationales per chunk, votes by majority, and agrees with the world's truth as often as the judge is accurate", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "judge", problems: 30, seed: 800, errorRate: 0.3 });
    const config = judgeHandler.configSchema.parse({ datasetId, judgeEndpoint: "judge", samples: 5, temperature: 1, seed: 4 });
    const run = await db.run.create({ data: { kind: "judge", config: (await judgeHandler.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, RUN_HANDLERS, { endpoints });
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");

    const chunks = await db.chunk.findMany({
      where: { segmentation: { trajectory: { datasetId } } },
      select: { id: true, index: true, segmentation: { select: { trajectory: { select: { sourceFirstErrorIndex: true } } } }, judgeSamples: { where: { runId: run.id }, select: { verdict: true, rationale: true } } },
    });
    expect(chunks.every((c) => c.judgeSamples.length === 5 && c.judgeSamples.every((s) => s.rationale.length > 0))).toBe(true);
    // In the world, a chunk is wrong from the first error on until a recovery; before it, every chunk is right.
    let right = 0;
    let judged = 0;
    for (const chunk of chunks) {
      const firstError = chunk.segmentation.trajectory.sourceFirstErrorIndex ?? -1;
      if (firstError !== -1 && chunk.index > firstError) continue; // after the first error the truth depends on recoveries
      const truth: Verdict = firstError === chunk.index ? "Negative" : "Positive";
      const vote = majorityVerdict(chunk.judgeSamples.map((s) => s.verdict));
      judged += 1;
      if (vote.verdict === truth) right += 1;
    }
    expect(right / judged).toBeGreaterThan(0.85);
    const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { result: true } });
    expect(units.every((u) => Array.isArray((u.result as { votes: unknown }).votes))).toBe(true);
  });
});
