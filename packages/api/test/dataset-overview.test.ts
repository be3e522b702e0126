import type { Db, LabelRule, StepLabel } from "@stepwiser/db";
import type { RunKind } from "@stepwiser/jobs";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory } from "../src";

type ChunkIds = string[];

async function addSolution(
  db: Db,
  datasetId: string,
  problemId: string,
  externalId: string,
  sourceFirstErrorIndex: number | null,
  segmentations: Record<string, number[]>,
): Promise<{ id: string; chunks: Record<string, ChunkIds>; segmentationIds: Record<string, string> }> {
  const texts = Object.fromEntries(Object.entries(segmentations).map(([method, lengths]) => [method, lengths.map((n) => "x".repeat(n))]));
  const firstMethod = Object.keys(texts)[0]!;
  const solution = await db.solution.create({
    data: { datasetId, problemId, externalId, generator: "g", text: texts[firstMethod]!.join(""), sourceFirstErrorIndex },
  });
  const chunks: Record<string, ChunkIds> = {};
  const segmentationIds: Record<string, string> = {};
  for (const [method, parts] of Object.entries(texts)) {
    let offset = 0;
    const segmentation = await db.segmentation.create({
      data: {
        solutionId: solution.id,
        method,
        chunks: {
          create: parts.map((text, index) => {
            const chunk = { index, text, startOffset: offset, endOffset: offset + text.length };
            offset += text.length;
            return chunk;
          }),
        },
      },
      select: { id: true, chunks: { orderBy: { index: "asc" }, select: { id: true } } },
    });
    chunks[method] = segmentation.chunks.map((c) => c.id);
    segmentationIds[method] = segmentation.id;
  }
  return { id: solution.id, chunks, segmentationIds };
}

const zeros = (n: number) => Array.from({ length: n }, () => 0);

describe("dataset overview", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });
  const caller = () =>
    createCallerFactory(appRouter)({ db: database.db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });

  it("bins chunks, lengths, Q-values, labels and first errors of the dataset only", async () => {
    const { db } = database;
    const dataset = await db.dataset.create({ data: { name: "overview", source: "processbench", status: "ready" } });
    const problem = await db.problem.create({ data: { datasetId: dataset.id, textHash: "h", text: "p", referenceAnswer: "1" } });
    const pp = "processbench-paragraphs";
    const t1 = await addSolution(db, dataset.id, problem.id, "t1", -1, { [pp]: [10, 45, 250], "blank-line": [305] });
    const t2 = await addSolution(db, dataset.id, problem.id, "t2", 2, { [pp]: [20, 99] });
    const t3 = await addSolution(db, dataset.id, problem.id, "t3", 25, { [pp]: Array.from({ length: 32 }, () => 5) });
    const t4 = await addSolution(db, dataset.id, problem.id, "t4", null, { [pp]: [3500, 3500, 3500], "blank-line": [] });

    const run = (kind: RunKind, createdAt: string, config: object, datasetId = dataset.id) =>
      db.run.create({
        data: { kind, datasetId, config: { datasetId, ...(kind === "judge" ? { judgeEndpoint: "sim-judge" } : { policyEndpoint: "sim-policy" }), ...config }, createdAt: new Date(createdAt), status: "completed" },
      });
    const a1 = await run("annotate", "2026-01-01T00:00:00Z", { rollouts: 4, strategy: "fixed" });
    const j1 = await run("judge", "2026-01-02T00:00:00Z", { judge: { name: "sim-judge", model: "sim-judge-7b", baseUrls: ["http://sim"], maxConcurrency: 4 }, samples: 2, temperature: 1 });
    const a2 = await run("annotate", "2026-01-03T00:00:00Z", { rollouts: 8, strategy: "early-stop" });

    // Prefix 0 (the bare problem) is not a chunk's value and must not be counted.
    const values = (segmentationId: string, q: number[]) =>
      db.chunkValue.createMany({ data: q.map((qValue, prefixLength) => ({ runId: a1.id, segmentationId, prefixLength, qValue, rolloutCount: 4, correctCount: Math.round(qValue * 4) })) });
    await values(t1.segmentationIds[pp]!, [0.05, 1, 0.3, 0]);
    await values(t2.segmentationIds[pp]!, [0.05, 0.25, 0.75]);
    await values(t4.segmentationIds[pp]!, [0.05, 0.1, 0.7, 0.95]);

    const labels = (runId: string, chunkIds: ChunkIds, rule: LabelRule, paramsKey: string, word: string) =>
      db.chunkLabel.createMany({ data: chunkIds.map((chunkId, i) => ({ runId, chunkId, rule, paramsKey, label: (word[i] === "P" ? "Positive" : "Negative") as StepLabel })) });
    await labels(a1.id, t1.chunks[pp]!, "abs_q", "{}", "PPN");
    await labels(a1.id, t1.chunks[pp]!, "rel_ratio", '{"gamma":0.8}', "PNN");
    await labels(a1.id, t1.chunks[pp]!, "rel_ratio", '{"gamma":0.5}', "PPP");
    await labels(a2.id, t2.chunks[pp]!, "abs_q", "{}", "NN");

    const stat = (runId: string, solutionId: string, firstNegative: number, datasetId = dataset.id) =>
      db.solutionRunStat.create({ data: { runId, solutionId, datasetId, chunkCount: 1, firstNegative, negativeCount: firstNegative >= 0 ? 1 : 0 } });
    await stat(a1.id, t1.id, 2);
    await stat(a1.id, t2.id, -1);
    await stat(a1.id, t3.id, 23);
    await stat(a1.id, t4.id, 0);
    await stat(j1.id, t1.id, 1);
    await stat(j1.id, t2.id, 1);

    // Another dataset's rows, each of a kind the overview reads: none may leak in.
    const other = await db.dataset.create({ data: { name: "other", source: "processbench", status: "ready" } });
    const otherProblem = await db.problem.create({ data: { datasetId: other.id, textHash: "h", text: "p" } });
    const o1 = await addSolution(db, other.id, otherProblem.id, "o1", 3, { [pp]: [50] });
    const otherRun = await run("annotate", "2026-01-04T00:00:00Z", { rollouts: 2 }, other.id);
    await db.chunkValue.create({ data: { runId: otherRun.id, segmentationId: o1.segmentationIds[pp]!, prefixLength: 1, qValue: 0.5, rolloutCount: 2, correctCount: 1 } });
    await labels(otherRun.id, o1.chunks[pp]!, "abs_q", "{}", "P");
    await stat(otherRun.id, o1.id, 0, other.id);

    const view = await caller().dataset.overview({ datasetId: dataset.id });

    expect(view.segmentations.map((s) => [s.method, s.solutions, s.chunks])).toEqual([
      ["blank-line", 2, 1],
      [pp, 4, 40],
    ]);
    const [blankLine, paragraphs] = view.segmentations;
    expect(blankLine!.chunksPerSolution).toEqual([
      { value: 0, orMore: false, solutions: 1 },
      { value: 1, orMore: false, solutions: 1 },
    ]);
    // 2, 3, 3 and 32 chunks; 32 lands in the "30 or more" bar, and the values between are present with 0.
    const perSolution = zeros(30);
    perSolution[2 - 1] = 1;
    perSolution[3 - 1] = 2;
    perSolution[30 - 1] = 1;
    expect(paragraphs!.chunksPerSolution).toEqual(perSolution.map((solutions, i) => ({ value: i + 1, orMore: i + 1 === 30, solutions })));

    expect(paragraphs!.chunkLength).toHaveLength(20);
    expect(paragraphs!.chunkLength.reduce((sum, b) => sum + b.count, 0)).toBe(40);
    expect(paragraphs!.chunkLength.filter((b) => b.count > 0)).toEqual([
      { from: 0, to: 20, count: 33 }, // 10 and 32 × 5
      { from: 20, to: 40, count: 1 }, // the lower edge belongs to its bin
      { from: 40, to: 60, count: 1 },
      { from: 80, to: 100, count: 1 },
      { from: 250, to: 300, count: 1 },
      { from: 3000, to: null, count: 3 },
    ]);
    expect(blankLine!.chunkLength.filter((b) => b.count > 0)).toEqual([{ from: 300, to: 400, count: 1 }]);

    // Newest run first; a run without values still gets its (empty) histogram.
    expect(view.qValues.map((q) => [q.runId, q.label])).toEqual([
      [a2.id, "annotate · sim-policy · M=8 · early-stop · 2026-01-03 00:00 UTC"],
      [a1.id, "annotate · sim-policy · M=4 · fixed · 2026-01-01 00:00 UTC"],
    ]);
    expect(view.qValues[0]!.bins.map((b) => b.count)).toEqual(zeros(10));
    // Chunk Q-values 1, 0.3, 0, 0.25, 0.75, 0.1, 0.7, 0.95: Q = 1 is in the last bin, 0.1 and 0.3 start theirs.
    expect(view.qValues[1]!.bins.map((b) => b.count)).toEqual([1, 1, 1, 1, 0, 0, 0, 2, 0, 2]);
    expect(view.qValues[1]!.bins[0]).toEqual({ from: 0, to: 0.1, count: 1 });
    expect(view.qValues[1]!.bins[9]).toEqual({ from: 0.9, to: 1, count: 2 });

    expect(view.labelBalance.map(({ runId, rule, paramsKey, positive, negative }) => [runId, rule, paramsKey, positive, negative])).toEqual([
      [a2.id, "abs_q", "{}", 0, 2],
      [a1.id, "abs_q", "{}", 2, 1],
      [a1.id, "rel_ratio", '{"gamma":0.5}', 3, 0],
      [a1.id, "rel_ratio", '{"gamma":0.8}', 1, 2],
    ]);

    // Source: -1, 2, 25 (capped at 20), null (left out). Every series spans positions 0..20 plus "none".
    const series = (nonZero: Record<string, number>) => [
      ...Array.from({ length: 21 }, (_, position) => ({ position, orMore: position === 20, count: nonZero[position] ?? 0 })),
      { position: "none", orMore: false, count: nonZero.none ?? 0 },
    ];
    expect(view.firstError).toEqual([
      { source: "source", label: "source labels", bins: series({ 2: 1, 20: 1, none: 1 }) },
      { source: "judge", runId: j1.id, label: "judge · sim-judge-7b · K=2 · 2026-01-02 00:00 UTC", bins: series({ 1: 2 }) },
      { source: "annotate", runId: a1.id, label: "annotate · sim-policy · M=4 · fixed · 2026-01-01 00:00 UTC", bins: series({ 0: 1, 2: 1, 20: 1, none: 1 }) },
    ]);
  });

  it("is empty for a dataset with nothing in it yet", async () => {
    const dataset = await database.db.dataset.create({ data: { name: "empty", source: "sim-world" } });
    await expect(caller().dataset.overview({ datasetId: dataset.id })).resolves.toEqual({
      datasetId: dataset.id,
      segmentations: [],
      qValues: [],
      labelBalance: [],
      confidence: [],
      firstError: [],
    });
  });

  it("names a missing dataset", async () => {
    await expect(caller().dataset.overview({ datasetId: "no-such-dataset" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("no-such-dataset"),
    });
  });
});
