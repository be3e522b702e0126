import { readFile } from "node:fs/promises";
import { buildProcessBenchCriticPrompt, CRITIC_PREDICTION_PARSERS, type ProcessBenchCriticTemplateId } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimJudge, startSimCluster, type SimCluster, type SimModel } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { benchmarkConfigSchema, benchmarkKind, createAndExecuteRun, createSimWorldDataset, EndpointClients, executeRun, readRunConfig, UNIT_RUN_KINDS } from "../src";

const MIGRATION = new URL("../../../prisma/migrations/20261126120000_critic_prompt_template/migration.sql", import.meta.url);

describe("critic-mode benchmark runs", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let datasetId: string;
  /** The user message of every request the critic endpoint received. */
  const prompts: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const strong = createSimJudge({ id: "sim-judge-strong" });
    const recorder: SimModel = {
      id: "critic-recorder",
      generate(request) {
        if (request.prompt.kind === "chat") prompts.push(request.prompt.messages.at(-1)!.content);
        return strong.generate(request);
      },
    };
    const huge: SimModel = { id: "huge-index", generate: () => "The earliest error is in paragraph \\boxed{3000000000}." };
    cluster = await startSimCluster({ models: [recorder, huge], replicas: 1, timeScale: 1000 });
    for (const model of ["critic-recorder", "huge-index"]) {
      await database.db.endpoint.create({ data: { name: model, model, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 16 } });
    }
    endpoints = new EndpointClients();
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "critic", problems: 12, seed: 300, errorRate: 0.3 }));
  });
  beforeEach(() => {
    prompts.length = 0;
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const criticConfig = (extra: Record<string, unknown> = {}) => ({
    datasetId,
    judgeEndpoint: "critic-recorder",
    mode: "critic",
    segmentationMethod: "self-segmented",
    bootstrap: { resamples: 200 },
    ...extra,
  });

  /** The prompts each solution gets under a template, as the official code would build them for v2. */
  async function expectedPrompts(templateId: ProcessBenchCriticTemplateId): Promise<string[]> {
    const segmentations = await database.db.segmentation.findMany({
      where: { method: "self-segmented", solution: { datasetId } },
      select: { chunks: { orderBy: { index: "asc" }, select: { text: true } }, solution: { select: { problem: { select: { text: true } } } } },
    });
    return segmentations.map((s) => buildProcessBenchCriticPrompt({ problem: s.solution.problem.text, steps: s.chunks.map((c) => c.text) }, templateId).text).sort();
  }

  /** Every stored prediction is the template's own reading of the stored answer. */
  async function expectPredictionsReadBy(runId: string, templateId: ProcessBenchCriticTemplateId) {
    const predictions = await database.db.solutionPrediction.findMany({ where: { runId }, select: { predictedFirstError: true, output: true } });
    expect(predictions).toHaveLength(12);
    for (const p of predictions) expect(p.predictedFirstError).toBe(CRITIC_PREDICTION_PARSERS[templateId](p.output!));
  }

  it("uses the official template (processbench-critic@v2) and its reading by default", async () => {
    const run = await createAndExecuteRun(database.db, { kind: "benchmark", config: criticConfig() }, { endpoints });
    expect(run.status).toBe("completed");
    // The snapshot stores the template it ran with, so a later default cannot change what it reads as.
    expect(run.config).toMatchObject({ criticPromptTemplateId: "processbench-critic@v2" });
    expect((run.summary as { promptTemplateId: string }).promptTemplateId).toBe("processbench-critic@v2");
    expect([...prompts].sort()).toEqual(await expectedPrompts("processbench-critic@v2"));
    expect(prompts[0]).toMatch(/^The following is a math problem and a solution \(split into paragraphs, enclosed with tags and indexed from 0\):\n\n\[Math Problem\]\n\n/);
    await expectPredictionsReadBy(run.id, "processbench-critic@v2");
  });

  it("uses processbench-critic@v1 and its reading when asked", async () => {
    const run = await createAndExecuteRun(database.db, { kind: "benchmark", config: criticConfig({ criticPromptTemplateId: "processbench-critic@v1" }) }, { endpoints });
    expect(run.status).toBe("completed");
    expect((run.summary as { promptTemplateId: string }).promptTemplateId).toBe("processbench-critic@v1");
    expect([...prompts].sort()).toEqual(await expectedPrompts("processbench-critic@v1"));
    await expectPredictionsReadBy(run.id, "processbench-critic@v1");
    await expect(createAndExecuteRun(database.db, { kind: "benchmark", config: criticConfig({ criticPromptTemplateId: "processbench-critic@v3" }) }, { endpoints })).rejects.toThrow(
      /criticPromptTemplateId/,
    );
  });

  it("reads critic runs stored before the choice existed as v1 once migrated, and resumes them with v1", async () => {
    const { db } = database;
    // A configuration as createRun stored it before the field existed: parsed, snapshotted, without it.
    const current = (await benchmarkKind.snapshot(db, benchmarkConfigSchema.parse(criticConfig()))) as Record<string, unknown>;
    const { criticPromptTemplateId: _, ...stored } = current;
    const oldCritic = await db.run.create({ data: { kind: "benchmark", config: stored as object, datasetId } });
    const oldChunkJudge = await db.run.create({ data: { kind: "benchmark", config: { ...stored, mode: "chunk-judge" } as object, datasetId } });
    const chosen = await db.run.create({ data: { kind: "benchmark", config: current as object, datasetId, status: "completed" } });
    // Without the migration the default would read them as v2.
    expect(benchmarkConfigSchema.parse(oldCritic.config).criticPromptTemplateId).toBe("processbench-critic@v2");

    const sql = await readFile(MIGRATION, "utf8");
    await db.$executeRawUnsafe(sql);
    await db.$executeRawUnsafe(sql); // idempotent
    const migrated = await db.run.findUniqueOrThrow({ where: { id: oldCritic.id } });
    expect(readRunConfig({ ...migrated, kind: "benchmark" }).criticPromptTemplateId).toBe("processbench-critic@v1");
    expect(migrated.config).toEqual({ ...stored, criticPromptTemplateId: "processbench-critic@v1" });
    expect((await db.run.findUniqueOrThrow({ where: { id: oldChunkJudge.id } })).config).not.toHaveProperty("criticPromptTemplateId");
    expect((await db.run.findUniqueOrThrow({ where: { id: chosen.id } })).config).toEqual(current); // a run that chose keeps its choice

    await executeRun(db, oldCritic.id, UNIT_RUN_KINDS, { endpoints });
    const resumed = await db.run.findUniqueOrThrow({ where: { id: oldCritic.id } });
    expect(resumed.status).toBe("completed");
    expect((resumed.summary as { promptTemplateId: string }).promptTemplateId).toBe("processbench-critic@v1");
    expect([...prompts].sort()).toEqual(await expectedPrompts("processbench-critic@v1"));
  });

  it("stores an index no integer column can hold as unparseable instead of failing the solution", async () => {
    const run = await createAndExecuteRun(database.db, { kind: "benchmark", config: criticConfig({ judgeEndpoint: "huge-index" }) }, { endpoints });
    expect(run.status).toBe("completed");
    const predictions = await database.db.solutionPrediction.findMany({ where: { runId: run.id }, select: { predictedFirstError: true } });
    expect(predictions.map((p) => p.predictedFirstError)).toEqual(Array(12).fill(null));
    expect((run.summary as { unparseable: number }).unparseable).toBe(12);
  });
});
