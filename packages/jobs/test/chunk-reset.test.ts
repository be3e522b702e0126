import { atScale } from "@stepwiser/config/test-scale";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chunkResetKind, createSimWorldDataset, EndpointClients, executeRun, UNIT_RUN_KINDS } from "../src";

/** Problems of the run with the default judge and of the run with each judge protocol (seeded: the same accuracies on every machine). */
const PROBLEMS = atScale({ default: 10, full: 40 });
const PROTOCOL_PROBLEMS = atScale({ default: 8, full: 30 });

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
    for (const [name, protocol] of [["sim-thinkprm", "thinkprm"], ["sim-math-prm", "discriminative-prm"], ["sim-genprm", "genprm"]] as const) {
      await database.db.endpoint.create({ data: { name, model: name, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64, protocols: [protocol] } });
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
    const { datasetId } = await createSimWorldDataset(db, { name: "reset", problems: PROBLEMS, seed: 500 });
    const config = chunkResetKind.submitSchema.parse({ datasetId, policyEndpoint: "policy", judgeEndpoint: "judge", seed: 2 });
    const run = await db.run.create({ data: { kind: "chunk_reset", config: (await chunkResetKind.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status).toBe("completed");
    const summary = done.summary as {
      problems: number;
      accuracy: { chunkReset: number; plain: number };
      tokens: { accepted: number; rejected: number; plain: number };
      resetsPerProblem: number;
      judgeOutputs: { outputs: number; truncated: number; unparseable: number };
    };
    expect(summary.problems).toBe(PROBLEMS);
    // Every attempt's judge output is counted: none cut at the 3096-token budget.
    expect(summary.judgeOutputs.outputs).toBeGreaterThan(PROBLEMS);
    expect(summary.judgeOutputs.truncated).toBe(0);
    expect(summary.accuracy.chunkReset).toBeGreaterThan(summary.accuracy.plain);
    expect(summary.tokens.rejected).toBeGreaterThan(0);
    expect(summary.resetsPerProblem).toBeGreaterThan(0);
    const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { result: true } });
    expect(units.every((u) => u.result !== null)).toBe(true);
  });

  it.each([
    // Seeded episodes: with 8 problems a run seed can draw a set where plain sampling happens to do as well.
    { judgeEndpoint: "sim-thinkprm", protocol: "thinkprm", seed: 3 },
    { judgeEndpoint: "sim-math-prm", protocol: "discriminative-prm", seed: 2 },
    { judgeEndpoint: "sim-genprm", protocol: "genprm", seed: 2 },
  ])("$protocol judges the newest chunk: resets raise accuracy over plain sampling", async ({ judgeEndpoint, protocol, seed }) => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: `reset-${protocol}`, problems: PROTOCOL_PROBLEMS, seed: 501 });
    const config = chunkResetKind.submitSchema.parse({ datasetId, policyEndpoint: "policy", judgeEndpoint, protocol, seed });
    const run = await db.run.create({ data: { kind: "chunk_reset", config: (await chunkResetKind.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status, done.error ?? "").toBe("completed");
    const summary = done.summary as { problems: number; accuracy: { chunkReset: number; plain: number }; tokens: { rejected: number }; resetsPerProblem: number };
    expect(summary.problems).toBe(PROTOCOL_PROBLEMS);
    expect(summary.accuracy.chunkReset).toBeGreaterThan(summary.accuracy.plain);
    expect(summary.tokens.rejected).toBeGreaterThan(0);
  });

  it("counts judge outputs cut at the judge's generation limit as truncated", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "reset-truncated", problems: 2, seed: 503 });
    const config = chunkResetKind.submitSchema.parse({ datasetId, policyEndpoint: "policy", judgeEndpoint: "judge", judgeMaxTokens: 4, maxChunks: 3, seed: 1 });
    const run = await db.run.create({ data: { kind: "chunk_reset", config: (await chunkResetKind.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status, done.error ?? "").toBe("completed");
    const { judgeOutputs } = done.summary as { judgeOutputs: { outputs: number; truncated: number; unparseable: number } };
    expect(judgeOutputs.outputs).toBeGreaterThan(0);
    expect(judgeOutputs).toEqual({ outputs: judgeOutputs.outputs, truncated: judgeOutputs.outputs, unparseable: 0 });
  });

  it("refuses a protocol without a verdict per chunk, and one the judge endpoint does not speak, naming the field", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "reset-refused", problems: 2, seed: 502 });
    const outcome = chunkResetKind.submitSchema.parse({ datasetId, policyEndpoint: "policy", judgeEndpoint: "judge", protocol: "outcome-pointwise" });
    await expect(chunkResetKind.snapshot(db, outcome)).rejects.toMatchObject({ location: { field: "protocol" } });
    const unspoken = chunkResetKind.submitSchema.parse({ datasetId, policyEndpoint: "policy", judgeEndpoint: "judge", protocol: "thinkprm" });
    await expect(chunkResetKind.snapshot(db, unspoken)).rejects.toMatchObject({ location: { field: "judgeEndpoint" } });
  });
});
