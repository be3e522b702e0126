import { judgeProtocolRef, majorityVerdict, type JudgeProtocolId, type Verdict } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSimWorldDataset, EndpointClients, executeRun, judgeKind, UNIT_RUN_KINDS } from "../src";

describe("judge runs", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
    await database.db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
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

  it("keeps K rationales per chunk, votes by majority, and agrees with the world's truth as often as the judge is accurate", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "judge", problems: 30, seed: 800, errorRate: 0.3 });
    const config = judgeKind.submitSchema.parse({ datasetId, judgeEndpoint: "judge", samples: 5, temperature: 1, seed: 4 });
    const run = await db.run.create({ data: { kind: "judge", config: (await judgeKind.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");

    const chunks = await db.chunk.findMany({
      where: { segmentation: { solution: { datasetId } } },
      select: { id: true, index: true, segmentation: { select: { solution: { select: { sourceFirstErrorIndex: true } } } }, judgeSamples: { where: { runId: run.id }, select: { verdict: true, rationale: true } } },
    });
    expect(chunks.every((c) => c.judgeSamples.length === 5 && c.judgeSamples.every((s) => s.rationale.length > 0))).toBe(true);
    // In the world, a chunk is wrong from the first error on until a recovery; before it, every chunk is right.
    let right = 0;
    let judged = 0;
    for (const chunk of chunks) {
      const firstError = chunk.segmentation.solution.sourceFirstErrorIndex ?? -1;
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

  /** Share of chunks up to the world's first error whose majority vote matches the truth. */
  async function agreement(db: TestDatabase["db"], runId: string, datasetId: string): Promise<{ judged: number; right: number }> {
    const chunks = await db.chunk.findMany({
      where: { segmentation: { solution: { datasetId } } },
      select: { index: true, segmentation: { select: { solution: { select: { sourceFirstErrorIndex: true } } } }, judgeSamples: { where: { runId }, select: { verdict: true } } },
    });
    let right = 0;
    let judged = 0;
    for (const chunk of chunks) {
      const firstError = chunk.segmentation.solution.sourceFirstErrorIndex ?? -1;
      if (chunk.judgeSamples.length === 0 || (firstError !== -1 && chunk.index > firstError)) continue;
      judged += 1;
      if (majorityVerdict(chunk.judgeSamples.map((s) => s.verdict)).verdict === (firstError === chunk.index ? "Negative" : "Positive")) right += 1;
    }
    return { judged, right };
  }

  it.each([
    { judgeEndpoint: "sim-thinkprm", protocol: "thinkprm", options: {} },
    { judgeEndpoint: "sim-math-prm", protocol: "discriminative-prm", options: {} },
    { judgeEndpoint: "sim-genprm", protocol: "genprm", options: {} },
    { judgeEndpoint: "sim-genprm", protocol: "genprm", options: { executeCode: true } },
  ])("$protocol $options stores a verdict and a score per judged chunk, read like StepWiser's", async ({ judgeEndpoint, protocol, options }) => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: `judge-${protocol}-${Object.keys(options).length}`, problems: 12, seed: 801, errorRate: 0.3 });
    const config = judgeKind.submitSchema.parse({ datasetId, judgeEndpoint, protocol, protocolOptions: options, seed: 4 });
    expect(config.protocolOptions.executeCode).toBe(protocol === "genprm" && "executeCode" in options);
    const run = await db.run.create({ data: { kind: "judge", config: (await judgeKind.snapshot(db, config)) as object, datasetId } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status, done.error ?? "").toBe("completed");
    const samples = await db.judgeSample.findMany({ where: { runId: run.id }, select: { promptTemplateId: true, verdict: true, score: true, rationale: true } });
    expect(samples.length).toBeGreaterThan(12);
    expect(samples.every((s) => s.promptTemplateId.startsWith(judgeProtocolRef(protocol as JudgeProtocolId)))).toBe(true);
    if (protocol !== "thinkprm") expect(samples.filter((s) => s.verdict !== "unparseable").every((s) => s.score !== null && s.score >= 0 && s.score <= 1)).toBe(true);
    if (protocol === "thinkprm") expect(await db.solutionPrediction.count({ where: { runId: run.id, score: { not: null } } })).toBe(12);
    if (protocol === "genprm") {
      // Executed or not, every judgement goes from the analysis to the boxed Yes/No; executed ones carry the sandbox's code output.
      expect(samples.every((s) => s.rationale.startsWith("<analyze>"))).toBe(true);
      expect(samples.filter((s) => s.verdict !== "unparseable").every((s) => /\\boxed\{(Yes|No)\}/.test(s.rationale))).toBe(true);
      if ("executeCode" in options) expect(samples.some((s) => s.rationale.includes("[Code Output]\n\n```\n"))).toBe(true);
    }
    const { judged, right } = await agreement(db, run.id, datasetId);
    expect(judged).toBeGreaterThan(20);
    expect(right / judged).toBeGreaterThan(0.7);
    // The judge run's per-solution reading (first Negative) is written as for StepWiser's judge.
    expect(await db.solutionRunStat.count({ where: { runId: run.id } })).toBe(12);
  });
});
