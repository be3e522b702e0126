import { createHash } from "node:crypto";
import { segmentationStats } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { sumServerMetric } from "@stepwiser/inference";
import { createSimModels, generateProblem, startSimCluster, truthOfSolution, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EndpointClients, executeRun, type AnyUnitRunKind, type RunContext, type UnitRunKinds } from "../src";
import type { GenerateConfig, GenerateConfigInput } from "../src/kinds/generate/config";
import { generateKind } from "../src/kinds/generate/kind";
import { generateOutputDatasetId } from "../src/kinds/generate/output-dataset";
import { annotateConfigSchema } from "../src/kinds/annotate/config";
import { planSegmentationIds } from "../src/kit/paging";

const HANDLERS: UnitRunKinds = new Map([[generateKind.kind, generateKind]]);
const PROBLEM_SEED = 300;
const PROBLEMS = 10;

async function createRun(db: Db, config: GenerateConfigInput) {
  const parsed = generateKind.submitSchema.parse(config);
  const snapshot = await generateKind.snapshot(db, parsed);
  return db.run.create({ data: { kind: "generate", config: snapshot as object, datasetId: snapshot.datasetId } });
}

/** A dataset of problems only, as a user would upload before generating. */
async function createProblemsDataset(db: Db, name: string, withoutReference = 0) {
  const dataset = await db.dataset.create({ data: { name, source: "test", status: "ready" } });
  for (let i = 0; i < PROBLEMS + withoutReference; i++) {
    const problem = generateProblem(PROBLEM_SEED + i);
    await db.problem.create({
      data: {
        datasetId: dataset.id,
        textHash: createHash("sha256").update(problem.text).digest("hex"),
        text: problem.text,
        referenceAnswer: i < PROBLEMS ? String(problem.answer) : null,
        metadata: { worldSeed: PROBLEM_SEED + i },
      },
    });
  }
  return dataset.id;
}

async function solutionsOf(db: Db, runId: string) {
  return db.solution.findMany({
    where: { datasetId: generateOutputDatasetId(runId) },
    orderBy: { externalId: "asc" },
    select: {
      externalId: true,
      text: true,
      runId: true,
      finalAnswer: true,
      finalAnswerCorrect: true,
      metadata: true,
      problem: { select: { id: true, metadata: true, referenceAnswer: true } },
      segmentations: { select: { id: true, method: true, runId: true, chunks: { orderBy: { index: "asc" }, select: { index: true, text: true, startOffset: true, endOffset: true } } } },
    },
  });
}

describe("generate runs on the simulated world", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 500 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    endpoints = new EndpointClients();
    datasetId = await createProblemsDataset(database.db, "problems", 2);
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  // 4 samples keep the tests fast; the paper's 16 is the default (checked below).
  const base = () => ({ datasetId, policyEndpoint: "policy", samplesPerProblem: 4, seed: 3, concurrency: 4 });

  it("defaults follow the paper: 16 samples at temperature 1, up to 8192 tokens, the prompt filter on", () => {
    expect(generateKind.submitSchema.parse({ datasetId: "d", policyEndpoint: "p" })).toMatchObject({ samplesPerProblem: 16, temperature: 1, maxTokens: 8192, filterMixed: true });
  });

  it("writes N graded, self-segmented solutions per problem into a new dataset", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), filterMixed: false });
    await executeRun(db, run.id, HANDLERS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status).toBe("completed");
    expect(done.unitsTotal).toBe(PROBLEMS); // problems without a reference answer are not planned
    expect(done.requests).toBe(PROBLEMS); // one request with n = N per problem

    const output = await db.dataset.findUniqueOrThrow({ where: { id: generateOutputDatasetId(run.id) } });
    expect(output.status).toBe("ready");
    expect(output.source).toBe("generate");
    expect(output.name).toBe(`problems · generate ${run.id}`);
    expect(await db.problem.count({ where: { datasetId: output.id } })).toBe(PROBLEMS);

    const solutions = await solutionsOf(db, run.id);
    expect(solutions).toHaveLength(PROBLEMS * 4);
    for (const s of solutions) {
      expect(s.runId).toBe(run.id);
      expect(s.externalId).toMatch(/-s[0-3]$/);
      const [segmentation] = s.segmentations;
      expect(segmentation).toMatchObject({ method: "self-segmented", runId: run.id });
      expect(segmentation!.chunks.length).toBeGreaterThan(0);
      for (const c of segmentation!.chunks) expect(s.text.slice(c.startOffset, c.endOffset)).toBe(c.text);
      // the world's own verdict agrees with the grader's
      const worldSeed = (s.problem.metadata as { worldSeed: number }).worldSeed;
      expect(s.finalAnswerCorrect).toBe(truthOfSolution(generateProblem(worldSeed), segmentation!.chunks).finalAnswerCorrect);
    }

    const summary = done.summary as { accuracy: number; selfSegmented: unknown; filter: { enabled: boolean; kept: number } };
    const correct = solutions.filter((s) => s.finalAnswerCorrect).length;
    expect(summary).toMatchObject({ outputDatasetId: output.id, problems: PROBLEMS, solutions: PROBLEMS * 4, correct, invalidSegmentations: 0, problemsWithoutReference: 2 });
    expect(summary.accuracy).toBeCloseTo(correct / solutions.length, 12);
    expect(correct).toBeGreaterThan(0);
    expect(correct).toBeLessThan(solutions.length);
    expect(summary.selfSegmented).toEqual(segmentationStats(solutions.map((s) => s.segmentations[0]!.chunks)));
    expect(summary.filter.enabled).toBe(false);
    expect(summary.filter.kept).toBe(PROBLEMS);
    expect(solutions.every((s) => (s.metadata as { filteredOut: boolean }).filteredOut === false)).toBe(true);
  });

  it("the same config and seed reproduce the same solutions; another seed does not", async () => {
    const { db } = database;
    const first = await createRun(db, base());
    const second = await createRun(db, base());
    const other = await createRun(db, { ...base(), seed: 4 });
    for (const run of [first, second, other]) await executeRun(db, run.id, HANDLERS, { endpoints });
    const texts = async (runId: string) => (await solutionsOf(db, runId)).map((s) => [s.externalId, s.text]);
    expect(await texts(second.id)).toEqual(await texts(first.id));
    expect(await texts(other.id)).not.toEqual(await texts(first.id));
  });

  it("filterMixed (on by default) keeps every problem but marks those whose answers all agree", async () => {
    const { db } = database;
    // Seed 8 gives all three kinds of problem (mixed, all right, all wrong), so both filter reasons are exercised.
    const run = await createRun(db, { ...base(), seed: 8 });
    await executeRun(db, run.id, HANDLERS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    const solutions = await solutionsOf(db, run.id);
    expect(solutions).toHaveLength(PROBLEMS * 4);
    const byProblem = new Map<string, typeof solutions>();
    for (const s of solutions) byProblem.set(s.problem.id, [...(byProblem.get(s.problem.id) ?? []), s]);
    let mixed = 0;
    for (const group of byProblem.values()) {
      const correct = group.filter((s) => s.finalAnswerCorrect).length;
      const expected = correct === 0 ? "all-wrong" : correct === group.length ? "all-correct" : null;
      if (!expected) mixed++;
      const problemMeta = group[0]!.problem.metadata as Record<string, unknown>;
      expect(problemMeta).toMatchObject({ filteredOut: expected !== null, correctSamples: correct, samples: 4 });
      expect(problemMeta.filterReason).toBe(expected ?? undefined);
      for (const s of group) expect(s.metadata).toMatchObject({ filteredOut: expected !== null });
    }
    expect(mixed).toBeGreaterThan(0);
    const summary = done.summary as { filter: { kept: number; keptShare: number; mixed: number; allCorrect: number; allWrong: number } };
    expect(summary.filter).toMatchObject({ kept: mixed, mixed, keptShare: mixed / PROBLEMS });
    expect(summary.filter.allCorrect + summary.filter.allWrong).toBe(PROBLEMS - mixed);
    expect(summary.filter.allCorrect).toBeGreaterThan(0);
    expect(summary.filter.allWrong).toBeGreaterThan(0);

    // An annotate run of the output leaves the marked problems' solutions out unless told to keep them.
    const outputId = generateOutputDatasetId(run.id);
    const keptSegmentations = solutions.filter((s) => !(s.metadata as { filteredOut: boolean }).filteredOut).map((s) => s.segmentations[0]!.id);
    const planned = async (config: Record<string, unknown>) => {
      const parsed = annotateConfigSchema.parse({ datasetId: outputId, policyEndpoint: "policy", ...config });
      const ids: string[] = [];
      for await (const id of planSegmentationIds(db, parsed)) ids.push(id);
      return ids;
    };
    expect(new Set(await planned({}))).toEqual(new Set(keptSegmentations));
    expect(keptSegmentations.length).toBe(mixed * 4);
    expect(await planned({ skipFilteredOut: false })).toHaveLength(PROBLEMS * 4);
    expect(await planned({ limit: 3 })).toHaveLength(3);
  });

  it("redoing a unit, alone or twice at once, writes no duplicates and sends no request for a done one", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), limit: 3 });
    const config = generateKind.submitSchema.parse(run.config) as GenerateConfig;
    const ctx: RunContext<GenerateConfig> = { db, runId: run.id, config, signal: new AbortController().signal, endpoints, recordUsage() {}, log() {} };
    const keys: string[] = [];
    for await (const key of generateKind.plan(ctx)) keys.push(key);
    expect(keys).toHaveLength(3);
    // a worker whose job expired while alive and the one that took over
    await Promise.all([generateKind.runUnit(ctx, keys[0]!), generateKind.runUnit(ctx, keys[0]!)]);
    for await (const key of generateKind.plan(ctx)) void key; // planning again after a crash
    expect(await db.dataset.count({ where: { id: generateOutputDatasetId(run.id) } })).toBe(1);
    const counts = async () => ({
      problems: await db.problem.count({ where: { datasetId: generateOutputDatasetId(run.id) } }),
      solutions: await db.solution.count({ where: { runId: run.id } }),
      segmentations: await db.segmentation.count({ where: { runId: run.id } }),
      chunks: await db.chunk.count({ where: { segmentation: { runId: run.id } } }),
    });
    const once = await counts();
    expect(once).toMatchObject({ problems: 1, solutions: 4, segmentations: 4 });
    const promptTokens = await sumServerMetric(cluster.urls, "vllm:prompt_tokens_total");
    await generateKind.runUnit(ctx, keys[0]!);
    expect(await counts()).toEqual(once);
    expect(await sumServerMetric(cluster.urls, "vllm:prompt_tokens_total")).toBe(promptTokens);

    // the engine, resumed with a done unit reset to pending
    await executeRun(db, run.id, HANDLERS, { endpoints });
    const all = await counts();
    await db.runUnit.updateMany({ where: { runId: run.id }, data: { status: "pending" } });
    await db.run.update({ where: { id: run.id }, data: { status: "queued", finishedAt: null } });
    await executeRun(db, run.id, HANDLERS, { endpoints });
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");
    expect(await counts()).toEqual(all);
    expect(all).toMatchObject({ problems: 3, solutions: 12 });
  });

  it("a cancelled run leaves its partial dataset ready; resumed, the dataset is importing again until the run completes", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), concurrency: 1 });
    const outputId = generateOutputDatasetId(run.id);
    const statusSeenByUnits: string[] = [];
    let unitsStarted = 0;
    // The first unit is worked, then the run is cancelled; later units wait for the cancellation to reach them.
    const cancelAfterFirst: AnyUnitRunKind = {
      ...generateKind,
      async runUnit(ctx: RunContext<GenerateConfig>, key: string) {
        statusSeenByUnits.push((await db.dataset.findUniqueOrThrow({ where: { id: outputId } })).status);
        if (unitsStarted++ === 0) {
          await generateKind.runUnit(ctx, key);
          await db.run.update({ where: { id: run.id }, data: { cancelRequestedAt: new Date() } });
          return;
        }
        // The cancellation may already have reached this unit: an aborted signal fires no more "abort" events.
        if (!ctx.signal.aborted) await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        throw new Error("cancelled");
      },
    };
    await executeRun(db, run.id, new Map([["generate", cancelAfterFirst]]), { endpoints, flushIntervalMs: 50 });
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("cancelled");
    expect((await db.dataset.findUniqueOrThrow({ where: { id: outputId } })).status).toBe("ready");
    expect(await db.solution.count({ where: { datasetId: outputId } })).toBe(4);

    // Resumed (as resumeRun leaves it): the units see the dataset importing, and the summary makes it ready.
    statusSeenByUnits.length = 0;
    const recording: AnyUnitRunKind = {
      ...generateKind,
      async runUnit(ctx: RunContext<GenerateConfig>, key: string) {
        statusSeenByUnits.push((await db.dataset.findUniqueOrThrow({ where: { id: outputId } })).status);
        await generateKind.runUnit(ctx, key);
      },
    };
    await db.run.update({ where: { id: run.id }, data: { status: "queued", cancelRequestedAt: null, finishedAt: null } });
    await executeRun(db, run.id, new Map([["generate", recording]]), { endpoints });
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");
    expect(statusSeenByUnits.length).toBe(PROBLEMS - 1);
    expect(new Set(statusSeenByUnits)).toEqual(new Set(["importing"]));
    expect((await db.dataset.findUniqueOrThrow({ where: { id: outputId } })).status).toBe("ready");
    expect(await db.solution.count({ where: { datasetId: outputId } })).toBe(PROBLEMS * 4);
  });

  it("a sample whose tags do not reconstruct is stored without a segmentation and counted", async () => {
    const { db } = database;
    // cut off mid-solution: the last chunk is never closed
    const run = await createRun(db, { ...base(), maxTokens: 60 });
    await executeRun(db, run.id, HANDLERS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status).toBe("completed");
    const solutions = await solutionsOf(db, run.id);
    const invalid = solutions.filter((s) => s.segmentations.length === 0);
    expect(invalid.length).toBeGreaterThan(0);
    for (const s of invalid) {
      const meta = s.metadata as { finishReason: string; segmentationError: { kind: string; message: string } };
      expect(meta.finishReason).toBe("length");
      expect(["unclosed-chunk", "text-outside-chunk"]).toContain(meta.segmentationError.kind);
      expect(s.text).toContain("<chunk>"); // stored as the policy wrote it, not repaired
    }
    const summary = done.summary as { invalidSegmentations: number; truncatedSamples: number; selfSegmented: { solutions: number } };
    expect(summary.invalidSegmentations).toBe(invalid.length);
    expect(summary.truncatedSamples).toBeGreaterThanOrEqual(invalid.length);
    expect(summary.selfSegmented.solutions).toBe(solutions.length - invalid.length);
  });

  it("rejects a configuration it cannot run before anything is stored", async () => {
    const { db } = database;
    expect(generateKind.submitSchema.safeParse({ ...base(), samplesPerProblem: 1, filterMixed: true }).success).toBe(false);
    expect(generateKind.submitSchema.safeParse({ ...base(), samplesPerProblem: 1 }).success).toBe(false); // the filter is on by default
    expect(generateKind.submitSchema.safeParse({ ...base(), samplesPerProblem: 1, filterMixed: false }).success).toBe(true);
    expect(generateKind.submitSchema.safeParse({ ...base(), temperature: 0 }).error?.issues[0]).toMatchObject({
      path: ["samplesPerProblem"],
      message: expect.stringContaining("samplesPerProblem is 4 but temperature is 0"),
    });
    expect(generateKind.submitSchema.safeParse({ ...base(), samplesPerProblem: 1, filterMixed: false, temperature: 0 }).success).toBe(true);
    await expect(generateKind.snapshot(db, generateKind.submitSchema.parse({ ...base(), datasetId: "nope" }))).rejects.toThrow(/no dataset/);
    await expect(generateKind.snapshot(db, generateKind.submitSchema.parse({ ...base(), problemIds: ["nope"] }))).rejects.toThrow(/no problem nope/);
    await expect(generateKind.snapshot(db, generateKind.submitSchema.parse({ ...base(), policyEndpoint: "nope" }))).rejects.toThrow(/no endpoint/);
  });
});
