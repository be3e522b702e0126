import { createServer } from "node:http";
import { buildChunkSegmenterPrompt, RULE_SEGMENTERS, segmentationStats, serializeChunkTags } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { sumServerMetric } from "@stepwiser/inference";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSimWorldDataset, EndpointClients, executeRun, type RunContext, type UnitRunKinds } from "../src";
import type { SegmentConfig, SegmentConfigInput } from "../src/kinds/segment/config";
import { segmentKind, segmenterAttemptSeed } from "../src/kinds/segment/kind";

const HANDLERS: UnitRunKinds = new Map([[segmentKind.kind, segmentKind]]);

async function createRun(db: Db, config: SegmentConfigInput) {
  const parsed = segmentKind.submitSchema.parse(config);
  const snapshot = await segmentKind.snapshot(db, parsed);
  return db.run.create({ data: { kind: "segment", config: snapshot as object, datasetId: snapshot.datasetId } });
}

async function runToEnd(db: Db, endpoints: EndpointClients, config: SegmentConfigInput) {
  const run = await createRun(db, config);
  await executeRun(db, run.id, HANDLERS, { endpoints });
  return db.run.findUniqueOrThrow({ where: { id: run.id } });
}

/** Segmentations of one method in a dataset, with their solution's text. */
async function segmentationsOf(db: Db, datasetId: string, method: string) {
  return db.segmentation.findMany({
    where: { method, solution: { datasetId } },
    select: {
      runId: true,
      params: true,
      solution: { select: { text: true } },
      chunks: { orderBy: { index: "asc" }, select: { index: true, text: true, startOffset: true, endOffset: true } },
    },
  });
}

/** A sim dataset plus one solution written with "Step N:" markers, which the sim policy never writes. */
async function datasetWithStepMarkers(db: Db, name: string, seed: number) {
  const { datasetId, solutions } = await createSimWorldDataset(db, { name, problems: 4, solutionsPerProblem: 2, seed });
  const problem = await db.problem.findFirstOrThrow({ where: { datasetId } });
  const text = "Step 1: She starts with 4 apples.\n\nStep 2: She buys 3 more: 4 + 3 = 7.\n**Step 3:** She gives away 2: 7 - 2 = 5.\nSo the answer is \\boxed{5}.";
  await db.solution.create({ data: { datasetId, problemId: problem.id, externalId: "steps-1", generator: "hand", text, metadata: { note: "hand-written" } } });
  return { datasetId, solutions: solutions + 1 };
}

describe("segment runs on the simulated world", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({
      models: createSimModels({
        "sim-segmenter-faulty": { kind: "segmenter", faultRate: 1 },
        "sim-segmenter-flaky": { kind: "segmenter", faultRate: 0.5 },
      }),
      replicas: 2,
      timeScale: 500,
    });
    for (const [name, model] of [["segmenter", "sim-segmenter"], ["segmenter-faulty", "sim-segmenter-faulty"], ["segmenter-flaky", "sim-segmenter-flaky"]] as const) {
      await database.db.endpoint.create({ data: { name, model, role: "segmenter", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    }
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it("blank-line and step-markers cut every solution exactly as the rules do, and compare with self-segmentation", async () => {
    const { db } = database;
    const { datasetId, solutions } = await datasetWithStepMarkers(db, "rules", 10);
    for (const method of ["blank-line", "step-markers"] as const) {
      const run = await runToEnd(db, endpoints, { datasetId, method, concurrency: 3 });
      expect(run.status).toBe("completed");
      expect(run.requests).toBe(0);
      const stored = await segmentationsOf(db, datasetId, method);
      expect(stored).toHaveLength(solutions);
      for (const s of stored) {
        expect(s.runId).toBe(run.id);
        expect(s.chunks).toEqual(RULE_SEGMENTERS[method](s.solution.text));
        for (const c of s.chunks) expect(s.solution.text.slice(c.startOffset, c.endOffset)).toBe(c.text);
      }
      const summary = run.summary as { method: string; created: number; skippedExisting: number; invalid: number; byMethod: Array<{ method: string; solutions: number }> };
      expect(summary).toMatchObject({ method, solutions, created: solutions, skippedExisting: 0, invalid: 0 });
      const row = summary.byMethod[0]!;
      expect(row).toEqual({ method, ...segmentationStats(stored.map((s) => s.chunks)) });
      // the sim solutions carry their self-segmentation; the hand-written one does not
      expect(summary.byMethod.find((m) => m.method === "self-segmented")?.solutions).toBe(solutions - 1);
    }
    const steps = await db.segmentation.findFirstOrThrow({ where: { method: "step-markers", solution: { datasetId, externalId: "steps-1" } }, select: { chunks: { orderBy: { index: "asc" }, select: { text: true } } } });
    expect(steps.chunks.map((c) => c.text)).toEqual([
      "Step 1: She starts with 4 apples.",
      "Step 2: She buys 3 more: 4 + 3 = 7.",
      "**Step 3:** She gives away 2: 7 - 2 = 5.\nSo the answer is \\boxed{5}.",
    ]);

    // a second run keeps the first one's segmentations and counts them as skipped
    const again = await runToEnd(db, endpoints, { datasetId, method: "blank-line" });
    expect(again.summary).toMatchObject({ created: 0, skippedExisting: solutions });
    expect(await db.segmentation.count({ where: { method: "blank-line", solution: { datasetId } } })).toBe(solutions);
    expect(await db.segmentation.count({ where: { runId: again.id } })).toBe(0);
  });

  it("sourceMethod restricts the run to solutions that have that segmentation", async () => {
    const { db } = database;
    const { datasetId, solutions } = await datasetWithStepMarkers(db, "source-method", 20);
    const run = await runToEnd(db, endpoints, { datasetId, method: "blank-line", sourceMethod: "self-segmented" });
    expect(run.unitsTotal).toBe(solutions - 1);
    expect(await db.segmentation.count({ where: { method: "blank-line", solution: { datasetId, externalId: "steps-1" } } })).toBe(0);
  });

  it("llm-segmenter stores the segmenter's chunks when they reconstruct the solution", async () => {
    const { db } = database;
    const { datasetId, solutions } = await datasetWithStepMarkers(db, "llm", 30);
    const run = await runToEnd(db, endpoints, { datasetId, method: "llm-segmenter", segmenterEndpoint: "segmenter", concurrency: 4 });
    expect(run.status).toBe("completed");
    expect(run.requests).toBe(solutions);
    const stored = await segmentationsOf(db, datasetId, "llm-segmenter");
    expect(stored).toHaveLength(solutions);
    for (const s of stored) {
      expect(s.runId).toBe(run.id);
      expect(s.params).toMatchObject({ endpoint: "segmenter", model: "sim-segmenter", promptTemplateId: "chunk-segmenter@v1", temperature: 0, attempt: 1, attempts: 8, rejectedAttempts: [] });
      expect(s.chunks.length).toBeGreaterThan(0);
      for (const c of s.chunks) expect(s.solution.text.slice(c.startOffset, c.endOffset)).toBe(c.text);
    }
    expect(run.summary).toMatchObject({ method: "llm-segmenter", created: solutions, invalid: 0, validShare: 1 });
  });

  it("a segmenter answer that alters the solution is counted as invalid and never stored as chunks", async () => {
    const { db } = database;
    const { datasetId, solutions } = await datasetWithStepMarkers(db, "faulty", 40);
    const run = await runToEnd(db, endpoints, { datasetId, method: "llm-segmenter", segmenterEndpoint: "segmenter-faulty", attempts: 3 });
    expect(run.status).toBe("completed");
    expect(run.requests).toBe(3 * solutions);
    expect(run.summary).toMatchObject({ created: 0, invalid: solutions, validShare: 0, attempts: { limit: 3, acceptedAt: [], requests: 3 * solutions } });
    const listed = (run.summary as { neverReconstructed: Array<{ attempts: number; kind: string }> }).neverReconstructed;
    expect(listed).toHaveLength(solutions);
    for (const entry of listed) expect(entry).toMatchObject({ attempts: 3, kind: "diverges" });
    expect(await db.segmentation.count({ where: { method: "llm-segmenter", solution: { datasetId } } })).toBe(0);
    const stored = await db.solution.findMany({ where: { datasetId }, select: { metadata: true } });
    for (const t of stored) {
      const meta = t.metadata as { segmentationFailures: Record<string, { error: string }>; trueQ?: unknown; note?: unknown };
      expect(meta.segmentationFailures["llm-segmenter"]).toMatchObject({ runId: run.id, kind: "diverges", model: "sim-segmenter-faulty", attempts: 3, attemptErrors: ["diverges", "diverges", "diverges"] });
      expect(meta.segmentationFailures["llm-segmenter"]!.error).toMatch(/differs from the original/);
      expect(meta.trueQ ?? meta.note).toBeDefined(); // what the dataset kept there is untouched
    }

    // redoing the units: the noted rejection stands, and no request is sent again
    const promptTokens = await sumServerMetric(cluster.urls, "vllm:prompt_tokens_total");
    await db.runUnit.updateMany({ where: { runId: run.id }, data: { status: "pending" } });
    await db.run.update({ where: { id: run.id }, data: { status: "queued", finishedAt: null } });
    await executeRun(db, run.id, HANDLERS, { endpoints });
    expect(await sumServerMetric(cluster.urls, "vllm:prompt_tokens_total")).toBe(promptTokens);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).summary).toMatchObject({ invalid: solutions });

    // a good segmenter later fills them in; the faulty run's notes stay as its record
    const good = await runToEnd(db, endpoints, { datasetId, method: "llm-segmenter", segmenterEndpoint: "segmenter" });
    expect(good.summary).toMatchObject({ created: solutions, invalid: 0 });
  });

  it("a segmenter that fails its first attempts: each solution is asked again with its next seed until an answer reconstructs, never repaired", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "scripted", problems: 5, solutionsPerProblem: 1, seed: 80 });
    const solutions = await db.solution.findMany({ where: { datasetId }, orderBy: { externalId: "asc" }, select: { id: true, externalId: true, text: true } });
    // The script: solution i's first answers alter the text (0, 1, 2, … of them); the last never reconstructs.
    const limit = 4;
    expect(new Set(solutions.map((s) => s.text)).size).toBe(solutions.length);
    const failuresOf = new Map(solutions.map((s, i) => [s.text, i === solutions.length - 1 ? Infinity : i % limit]));
    const script = await startScriptedSegmenter(failuresOf);
    try {
      await db.endpoint.create({ data: { name: "segmenter-scripted", model: "scripted-segmenter", role: "segmenter", baseUrls: [script.url], maxConcurrency: 8 } });
      const config = { datasetId, method: "llm-segmenter" as const, segmenterEndpoint: "segmenter-scripted", attempts: limit, seed: 11, retryTemperature: 0.9 };
      const run = await runToEnd(db, endpoints, config);
      expect(run.status).toBe("completed");
      const stored = await segmentationsOf(db, datasetId, "llm-segmenter");
      const byText = new Map(stored.map((s) => [s.solution.text, s]));
      let requests = 0;
      for (const [i, solution] of solutions.entries()) {
        const failures = failuresOf.get(solution.text)!;
        const asked = script.requests.filter((r) => r.solution === solution.text);
        const tried = Math.min(failures + 1, limit);
        requests += tried;
        // Attempt k carries seed k of this solution (from the run seed), the first at the configured temperature, the others at the retry temperature.
        expect(asked.map((r) => r.seed)).toEqual(Array.from({ length: tried }, (_, k) => segmenterAttemptSeed(11, solution.externalId, k + 1)));
        expect(asked.map((r) => r.temperature)).toEqual(Array.from({ length: tried }, (_, k) => (k === 0 ? 0 : 0.9)));
        expect(new Set(asked.map((r) => r.seed)).size).toBe(tried);
        const segmentation = byText.get(solution.text);
        if (failures >= limit) {
          expect(segmentation, `solution ${i}`).toBeUndefined();
          continue;
        }
        // The first reconstructing answer is kept, and its chunks are the script's valid ones.
        expect(segmentation!.params).toMatchObject({ attempt: failures + 1, attempts: limit, seed: asked[failures]!.seed, rejectedAttempts: Array(failures).fill("diverges") });
        expect(segmentation!.chunks.map((c) => c.text)).toEqual(RULE_SEGMENTERS["blank-line"](solution.text).map((c) => c.text));
      }
      expect(script.requests).toHaveLength(requests);
      expect(run.requests).toBe(requests);
      const summary = run.summary as { created: number; invalid: number; attempts: { limit: number; acceptedAt: Array<{ attempt: number; solutions: number }>; requests: number }; neverReconstructed: Array<{ externalId: string; attempts: number }> };
      expect(summary.created).toBe(solutions.length - 1);
      expect(summary.invalid).toBe(1);
      expect(summary.attempts).toEqual({ limit, acceptedAt: [{ attempt: 1, solutions: 1 }, { attempt: 2, solutions: 1 }, { attempt: 3, solutions: 1 }, { attempt: 4, solutions: 1 }], requests });
      expect(summary.neverReconstructed).toEqual([expect.objectContaining({ externalId: solutions.at(-1)!.externalId, attempts: limit, kind: "diverges" })]);

      // Reproducible: the same config on a copy of the dataset asks the same questions with the same seeds.
      const first = script.requests.map((r) => [r.solution, r.seed, r.temperature]);
      script.requests.length = 0;
      script.reset();
      const copy = await createSimWorldDataset(db, { name: "scripted-copy", problems: 5, solutionsPerProblem: 1, seed: 80 });
      await runToEnd(db, endpoints, { ...config, datasetId: copy.datasetId });
      expect(script.requests.map((r) => [r.solution, r.seed, r.temperature]).sort()).toEqual([...first].sort());
    } finally {
      await script.close();
    }
  });

  it("a flaky segmenter: valid answers stored, invalid ones counted, together every solution", async () => {
    const { db } = database;
    const { datasetId, solutions } = await createSimWorldDataset(db, { name: "flaky", problems: 8, solutionsPerProblem: 2, seed: 50 });
    const run = await runToEnd(db, endpoints, { datasetId, method: "llm-segmenter", segmenterEndpoint: "segmenter-flaky", temperature: 1, seed: 2, attempts: 1 });
    const summary = run.summary as { created: number; invalid: number; validShare: number };
    expect(summary.created + summary.invalid).toBe(solutions);
    expect(summary.created).toBeGreaterThan(0);
    expect(summary.invalid).toBeGreaterThan(0);
    expect(summary.validShare).toBeCloseTo(summary.created / solutions, 12);
    expect(await db.segmentation.count({ where: { method: "llm-segmenter", solution: { datasetId } } })).toBe(summary.created);
    expect(await db.chunk.count({ where: { segmentation: { runId: run.id } } })).toBeGreaterThan(0);
  });

  it("a unit done twice at once writes one segmentation and one set of chunks", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "race", problems: 1, seed: 60 });
    for (const config of [
      { datasetId, method: "blank-line" as const },
      { datasetId, method: "llm-segmenter" as const, segmenterEndpoint: "segmenter" },
    ]) {
      const run = await createRun(db, config);
      const ctx: RunContext<SegmentConfig> = { db, runId: run.id, config: segmentKind.submitSchema.parse(run.config), signal: new AbortController().signal, endpoints, recordUsage() {}, log() {} };
      const keys: string[] = [];
      for await (const key of segmentKind.plan(ctx)) keys.push(key);
      await Promise.all([segmentKind.runUnit(ctx, keys[0]!), segmentKind.runUnit(ctx, keys[0]!)]);
      await segmentKind.runUnit(ctx, keys[0]!);
      const expected = RULE_SEGMENTERS["blank-line"]((await db.solution.findUniqueOrThrow({ where: { id: keys[0]! } })).text).length;
      expect(await db.segmentation.count({ where: { runId: run.id } })).toBe(1);
      const chunks = await db.chunk.count({ where: { segmentation: { runId: run.id } } });
      if (config.method === "blank-line") expect(chunks).toBe(expected);
      else expect(chunks).toBeGreaterThan(0);
    }
  });

  it("rejects configurations it cannot run", async () => {
    const { db } = database;
    const parse = (config: object) => segmentKind.submitSchema.safeParse(config).success;
    expect(parse({ datasetId: "x", method: "llm-segmenter" })).toBe(false);
    expect(parse({ datasetId: "x", method: "blank-line", segmenterEndpoint: "segmenter" })).toBe(false);
    expect(parse({ datasetId: "x", method: "paragraphs" })).toBe(false);
    const { datasetId } = await createSimWorldDataset(db, { name: "config", problems: 1, seed: 70 });
    await expect(segmentKind.snapshot(db, segmentKind.submitSchema.parse({ datasetId, method: "llm-segmenter", segmenterEndpoint: "nope" }))).rejects.toThrow(/no endpoint/);
    await expect(segmentKind.snapshot(db, segmentKind.submitSchema.parse({ datasetId: "nope", method: "blank-line" }))).rejects.toThrow(/no dataset/);
  });
});

/**
 * An OpenAI-compatible segmenter whose answers follow a script: for each solution (by its
 * text), its first `failures` answers alter one character, the rest tag its blank-line
 * paragraphs exactly. It records each request's solution, seed and temperature.
 */
async function startScriptedSegmenter(failuresOf: ReadonlyMap<string, number>) {
  const [head = ""] = buildChunkSegmenterPrompt({ solution: "\u0000" }).text.split("\u0000");
  const requests: Array<{ solution: string; seed: number; temperature: number }> = [];
  const answered = new Map<string, number>();
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (request.method === "GET") return json(200, { object: "list", data: [{ id: "scripted-segmenter", object: "model", owned_by: "vllm" }] });
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { messages: Array<{ content: string }>; seed: number; temperature: number };
      const solution = body.messages[0]!.content.slice(head.length);
      requests.push({ solution, seed: body.seed, temperature: body.temperature });
      const seen = answered.get(solution) ?? 0;
      answered.set(solution, seen + 1);
      const chunks = RULE_SEGMENTERS["blank-line"](solution).map((c) => c.text);
      if (seen < (failuresOf.get(solution) ?? 0)) chunks[0] = `${chunks[0]!} (checked)`;
      const content = serializeChunkTags(chunks);
      json(200, {
        id: `cmpl-${requests.length}`,
        object: "chat.completion",
        created: 0,
        model: "scripted-segmenter",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reset: () => answered.clear(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
