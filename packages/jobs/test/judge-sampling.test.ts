import { readFile } from "node:fs/promises";
import { voteCriticSamples } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createAndExecuteRun, createRun, createSimWorldDataset, EndpointClients, prepareRun, readRunConfig, runPredictions } from "../src";
import { startRecordingProxy, type RecordingProxy } from "./helpers";

const PROMPTS_MIGRATION = new URL("../../../prisma/migrations/20261202020100_paper_prompts/migration.sql", import.meta.url);
const PROBLEMS = 6;

/**
 * Judge runs as their protocols' sources sample them, checked on the wire: a recording proxy
 * in front of the simulated cluster keeps every request body a run sends.
 */
describe("judge sampling, critic voting and truncation", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let proxy: RecordingProxy;
  let endpoints: EndpointClients;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    proxy = await startRecordingProxy(new URL(cluster.urls[0]!).origin);
    await database.db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [`${proxy.url}/v1`], maxConcurrency: 16 } });
    endpoints = new EndpointClients();
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "sampling", problems: PROBLEMS, seed: 41, errorRate: 0.3 }));
  });
  beforeEach(() => {
    proxy.bodies.length = 0;
  });
  afterAll(async () => {
    await endpoints?.close();
    await proxy?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const benchmark = (extra: Record<string, unknown>) => ({ kind: "benchmark" as const, config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", bootstrap: { resamples: 100 }, ...extra } });

  it("a critic benchmark with K = 4 at temperature 1 asks once per solution for 4 samples, stores them and votes", async () => {
    const run = await createAndExecuteRun(database.db, benchmark({ protocol: "processbench-critic", samples: 4, temperature: 1 }), { endpoints });
    expect(run.status, run.error ?? "").toBe("completed");
    // One request per solution with n = 4, ProcessBench's voting top_p and its 8192-token budget.
    expect(proxy.bodies).toHaveLength(PROBLEMS);
    for (const body of proxy.bodies) expect(body).toMatchObject({ n: 4, temperature: 1, top_p: 0.9, max_tokens: 8192 });
    expect(run.config).toMatchObject({ samples: 4, temperature: 1, topP: 0.9, maxTokens: 8192 });

    const predictions = await database.db.solutionPrediction.findMany({ where: { runId: run.id }, select: { predictedFirstError: true, samples: true, solution: { select: { externalId: true } } } });
    expect(predictions).toHaveLength(PROBLEMS);
    const lines = new Map<string, { prediction: number | null; votes?: Array<number | null> }>();
    for await (const line of runPredictions(database.db, run.id)) lines.set(line.id, line);
    for (const prediction of predictions) {
      const samples = prediction.samples as Array<{ output: string; answer: string | null; vote: number | null; truncated: boolean }>;
      expect(samples).toHaveLength(4);
      const vote = voteCriticSamples(samples.map((s) => s.output), "processbench-critic@v2");
      expect(samples.map((s) => s.vote)).toEqual(vote.samples.map((s) => s.vote));
      expect(prediction.predictedFirstError).toBe(vote.prediction);
      // `run predictions` carries each sample's vote, in sample order.
      expect(lines.get(prediction.solution.externalId)).toEqual({ id: prediction.solution.externalId, prediction: vote.prediction, votes: samples.map((s) => s.vote) });
    }
    expect((run.summary as { judgeOutputs: { outputs: number } }).judgeOutputs.outputs).toBe(4 * PROBLEMS);
  });

  it("a single-sample critic is greedy with no top_p, and its prediction lines carry one vote", async () => {
    const run = await createAndExecuteRun(database.db, benchmark({ protocol: "processbench-critic" }), { endpoints });
    expect(run.status, run.error ?? "").toBe("completed");
    for (const body of proxy.bodies) {
      expect(body).toMatchObject({ temperature: 0, max_tokens: 8192 });
      expect(body).not.toHaveProperty("top_p");
    }
    for await (const line of runPredictions(database.db, run.id)) expect(line.votes).toEqual([line.prediction]);
  });

  it("the StepWiser judge asks with the paper's prompt and 3096 tokens by default, and runs name their template", async () => {
    const run = await createAndExecuteRun(database.db, { kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented" } }, { endpoints });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.config).toMatchObject({ judgePromptTemplateId: "stepwiser-judge@v2", maxTokens: 3096, temperature: 0 });
    expect(run.summary).toMatchObject({ judgePromptTemplateId: "stepwiser-judge@v2" });
    expect(proxy.bodies.length).toBeGreaterThan(PROBLEMS);
    for (const body of proxy.bodies) {
      expect(body).toMatchObject({ max_tokens: 3096 });
      expect(body).not.toHaveProperty("top_p");
      const messages = body.messages as Array<{ content: string }>;
      expect(messages.at(-1)!.content.startsWith("Instruction:\nYou are a reasoning validator for mathematical problems.")).toBe(true);
    }
    const templates = await database.db.judgeSample.groupBy({ by: ["promptTemplateId"], where: { runId: run.id } });
    expect(templates.map((t) => t.promptTemplateId)).toEqual(["stepwiser-judge@v2"]);
    const old = await createAndExecuteRun(database.db, { kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", judgePromptTemplateId: "stepwiser-judge@v1", limit: 1 } }, { endpoints });
    expect(old.status, old.error ?? "").toBe("completed");
    expect((await database.db.judgeSample.groupBy({ by: ["promptTemplateId"], where: { runId: old.id } })).map((t) => t.promptTemplateId)).toEqual(["stepwiser-judge@v1"]);
    await expect(prepareRun(database.db, { kind: "judge", config: { datasetId, judgeEndpoint: "judge", protocol: "processbench-critic", judgePromptTemplateId: "stepwiser-judge@v2" } })).rejects.toThrow(/judgePromptTemplateId/);
  });

  it("counts a judge output cut at its generation limit as truncated, apart from unparseable", async () => {
    const run = await createAndExecuteRun(database.db, benchmark({ protocol: "stepwiser-chunk", maxTokens: 4, stopAtFirstNegative: false }), { endpoints });
    expect(run.status, run.error ?? "").toBe("completed");
    const samples = await database.db.judgeSample.findMany({ where: { runId: run.id }, select: { truncated: true, verdict: true } });
    expect(samples.length).toBeGreaterThan(PROBLEMS);
    expect(samples.every((s) => s.truncated && s.verdict === "unparseable")).toBe(true);
    const { judgeOutputs } = run.summary as { judgeOutputs: { outputs: number; truncated: number; unparseable: number } };
    expect(judgeOutputs).toEqual({ outputs: samples.length, truncated: samples.length, unparseable: 0 });

    const critic = await createAndExecuteRun(database.db, benchmark({ protocol: "processbench-critic", samples: 2, temperature: 1, maxTokens: 4 }), { endpoints });
    expect(critic.status, critic.error ?? "").toBe("completed");
    expect((critic.summary as { judgeOutputs: unknown }).judgeOutputs).toEqual({ outputs: 2 * PROBLEMS, truncated: 2 * PROBLEMS, unparseable: 0 });
    for await (const line of runPredictions(database.db, critic.id)) expect(line).toMatchObject({ prediction: null, votes: [null, null] });

    // An answer that ends without a verdict is unparseable, not truncated.
    const untruncated = await createAndExecuteRun(database.db, benchmark({ protocol: "stepwiser-chunk" }), { endpoints });
    const counts = (untruncated.summary as { judgeOutputs: { truncated: number; unparseable: number } }).judgeOutputs;
    expect(counts.truncated).toBe(0);
    expect(counts.unparseable).toBe(await database.db.judgeSample.count({ where: { runId: untruncated.id, verdict: "unparseable" } }));

    // A built-in simulated judge's chunk benchmark states what its configuration alone predicts on these solutions; a critic's does not.
    const expectation = (untruncated.summary as { simulatorExpectation?: { judge: string; samples: number; meanChunksCorrect: number | null; acc_cor: number | null } }).simulatorExpectation;
    const correct = await database.db.solution.findMany({
      where: { datasetId, sourceFirstErrorIndex: -1 },
      select: { segmentations: { where: { method: "self-segmented" }, select: { _count: { select: { chunks: true } } } } },
    });
    const chunkCounts = correct.map((s) => s.segmentations[0]!._count.chunks);
    expect(expectation).toMatchObject({ judge: "sim-judge-strong", samples: 1 });
    expect(expectation!.meanChunksCorrect).toBeCloseTo(chunkCounts.reduce((a, b) => a + b, 0) / chunkCounts.length, 9);
    const perChunk = 0.99 * 0.95;
    expect(expectation!.acc_cor).toBeCloseTo(chunkCounts.reduce((a, k) => a + perChunk ** k, 0) / chunkCounts.length, 9);
    expect((critic.summary as { simulatorExpectation?: unknown }).simulatorExpectation).toBeUndefined();
  });

  it("refuses a benchmark whose segmentation method no solution has, naming the dataset's methods", async () => {
    const before = await database.db.run.count();
    const refused = createRun(database.db, { ...benchmark({ protocol: "stepwiser-chunk" }), config: { ...benchmark({}).config, segmentationMethod: "processbench-paragraphs" }, source: "bench.json" });
    await expect(refused).rejects.toMatchObject({ location: { file: "bench.json", field: "segmentationMethod" } });
    await expect(refused).rejects.toThrow(/segmented by "processbench-paragraphs".*segmentation methods: self-segmented \(\d+ solutions\)/);
    await expect(createRun(database.db, { kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", solutionIds: ["nope"] } })).rejects.toMatchObject({
      location: { field: "solutionIds" },
    });
    expect(await database.db.run.count()).toBe(before);
  });

  it("reads runs stored before runs named their judge prompt as v1, once migrated", async () => {
    const { db } = database;
    const prepared = await prepareRun(db, { kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented" } });
    const { judgePromptTemplateId: _, ...stored } = prepared.config as Record<string, unknown>;
    expect(readRunConfig({ id: "a", kind: "judge", config: stored }).judgePromptTemplateId).toBe("stepwiser-judge@v1");
    const old = await db.run.create({ data: { kind: "judge", config: stored as object, datasetId } });
    const critic = await db.run.create({ data: { kind: "benchmark", config: { ...stored, protocol: "processbench-critic" } as object, datasetId } });
    const sql = await readFile(PROMPTS_MIGRATION, "utf8");
    for (const statement of sql.replace(/--[^\n]*\n/g, "\n").split(";").filter((part) => part.trim() !== "")) await db.$executeRawUnsafe(statement);
    expect((await db.run.findUniqueOrThrow({ where: { id: old.id } })).config).toEqual({ ...stored, judgePromptTemplateId: "stepwiser-judge@v1" });
    expect((await db.run.findUniqueOrThrow({ where: { id: critic.id } })).config).not.toHaveProperty("judgePromptTemplateId");
  });
});
