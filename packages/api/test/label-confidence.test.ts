import { confidenceBin } from "@stepwiser/core";
import type { Db, LabelRule, StepLabel } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory } from "../src";

const ABS_Q = { rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' } as const;
const REL_RATIO = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;
const POLICY = { name: "sim-policy", model: "sim-policy-7b", baseUrls: ["http://sim-a:8000/v1", "http://sim-b:8000/v1"], maxConcurrency: 64 };

/** One solution of `chunks` chunks in the self-segmented segmentation; its chunk ids in order. */
async function addSolution(db: Db, datasetId: string, problemId: string, externalId: string, chunks: number): Promise<string[]> {
  const parts = Array.from({ length: chunks }, (_, i) => `Step ${i + 1}: x = ${i}.`);
  const solution = await db.solution.create({ data: { datasetId, problemId, externalId, generator: "sim-policy-7b", text: parts.join("\n") } });
  let offset = 0;
  const segmentation = await db.segmentation.create({
    data: {
      solutionId: solution.id,
      method: "self-segmented",
      chunks: {
        create: parts.map((text, index) => {
          const chunk = { index, text, startOffset: offset, endOffset: offset + text.length };
          offset += text.length + 1;
          return chunk;
        }),
      },
    },
    select: { chunks: { orderBy: { index: "asc" }, select: { id: true } } },
  });
  return segmentation.chunks.map((c) => c.id);
}

const zeros = () => Array.from({ length: 10 }, () => 0);
const binsOf = (counts: number[]) => counts.map((count, i) => ({ from: i / 10, to: (i + 1) / 10, count }));

describe("label confidence histograms", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });
  const caller = () =>
    createCallerFactory(appRouter)({ db: database.db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });

  it("count each annotate run's labels per rule in tenths of confidence, labels without one apart, on the dataset overview and the run page", async () => {
    const { db } = database;
    const dataset = await db.dataset.create({ data: { name: "confidence", source: "sim-world", status: "ready" } });
    const problem = await db.problem.create({ data: { datasetId: dataset.id, textHash: "h1", text: "What is 2 + 3?", referenceAnswer: "5" } });
    const first = await addSolution(db, dataset.id, problem.id, "s1", 6);
    const second = await addSolution(db, dataset.id, problem.id, "s2", 4);
    const chunks = [...first, ...second];

    const annotateConfig = (over: object) => ({
      datasetId: dataset.id,
      segmentationMethod: "self-segmented",
      policyEndpoint: "sim-policy",
      policy: POLICY,
      labelRules: [{ rule: "abs-q", evidence: "own-prefix" }, { rule: "rel-ratio", gamma: 0.7 }],
      seed: 3,
      ...over,
    });
    const run = (kind: "annotate" | "import" | "judge", createdAt: string, config: object, datasetId = dataset.id) =>
      db.run.create({ data: { kind, datasetId, status: "completed", createdAt: new Date(createdAt), config } });
    const adaptive = await run("annotate", "2026-02-01T00:00:00Z", annotateConfig({ strategy: "adaptive", adaptiveBatch: 4, targetConfidence: 0.95, maxRollouts: 32 }));
    const fixed = await run("annotate", "2026-02-02T00:00:00Z", annotateConfig({ strategy: "fixed", rollouts: 8 }));
    const imported = await run("import", "2026-02-03T00:00:00Z", { format: "math-shepherd", fileName: "shepherd.jsonl", datasetName: "confidence" });
    const judge = await run("judge", "2026-02-04T00:00:00Z", {
      datasetId: dataset.id,
      judgeEndpoint: "sim-judge",
      judge: { name: "sim-judge", model: "sim-judge-7b", baseUrls: ["http://sim-j:8000/v1"], maxConcurrency: 16 },
      samples: 4,
      temperature: 1,
    });

    const labels = (runId: string, stored: { rule: LabelRule; paramsKey: string }, confidences: (number | null)[]) =>
      db.chunkLabel.createMany({
        data: confidences.map((confidence, i) => ({ runId, chunkId: chunks[i]!, ...stored, label: (i % 3 === 0 ? "Negative" : "Positive") as StepLabel, confidence })),
      });
    // Edges: a bin's lower edge belongs to it (0.1, 0.5), 0.3 × 10 is 2.999… in floating point and still bin 3, 1.0 is in the last bin.
    const adaptiveAbsQ = [0, 0.05, 0.1, 0.3, 0.5, 0.95, 0.99, 1, 1, null];
    const adaptiveRatio = [0.42, 0.42, 0.9, 0.97, 0.999, null, null, 0.61, 0.7, 0.88];
    const fixedRatio = [0.2, 0.35, 0.6, 0.8, 0.95, 0.999, 0.5, 0.55, 0.7, 0.71];
    await labels(adaptive.id, ABS_Q, adaptiveAbsQ);
    await labels(adaptive.id, REL_RATIO, adaptiveRatio);
    await labels(fixed.id, REL_RATIO, fixedRatio);
    // An import run's labels carry no confidence and are not an annotate run's: left out.
    await labels(imported.id, ABS_Q, chunks.map(() => null));

    // Another dataset's annotate run: its labels must not leak in.
    const other = await db.dataset.create({ data: { name: "other", source: "sim-world", status: "ready" } });
    const otherProblem = await db.problem.create({ data: { datasetId: other.id, textHash: "h2", text: "What is 1 + 1?", referenceAnswer: "2" } });
    const otherChunks = await addSolution(db, other.id, otherProblem.id, "o1", 2);
    const otherRun = await run("annotate", "2026-02-05T00:00:00Z", { ...annotateConfig({ strategy: "fixed", rollouts: 4 }), datasetId: other.id }, other.id);
    await db.chunkLabel.createMany({ data: otherChunks.map((chunkId) => ({ runId: otherRun.id, chunkId, ...ABS_Q, label: "Positive" as StepLabel, confidence: 0.97 })) });

    /** The bins core's confidenceBin gives, computed apart from SQL. */
    const expectedBins = (confidences: (number | null)[]) => {
      const counts = zeros();
      for (const c of confidences) if (c !== null) counts[confidenceBin(c)]! += 1;
      return binsOf(counts);
    };
    expect(expectedBins(adaptiveAbsQ).map((b) => b.count)).toEqual([2, 1, 0, 1, 0, 1, 0, 0, 0, 4]);

    const view = await caller().dataset.overview({ datasetId: dataset.id });
    expect(view.confidence.map((h) => [h.runId, h.runLabel, h.rule, h.paramsKey, h.labels, h.noConfidence])).toEqual([
      [fixed.id, "annotate · sim-policy-7b · M=8 · fixed · 2026-02-02 00:00 UTC", "rel_ratio", '{"gamma":0.7}', 10, 0],
      [adaptive.id, expect.stringMatching(/^annotate · sim-policy-7b · M≤32 · adaptive to 0.95 · 2026-02-01 00:00 UTC$/), "abs_q", '{"evidence":"own-prefix"}', 10, 1],
      [adaptive.id, expect.stringMatching(/adaptive/), "rel_ratio", '{"gamma":0.7}', 10, 2],
    ]);
    expect(view.confidence[0]!.bins).toEqual(expectedBins(fixedRatio));
    expect(view.confidence[1]!.bins).toEqual(binsOf([2, 1, 0, 1, 0, 1, 0, 0, 0, 4]));
    expect(view.confidence[2]!.bins).toEqual(expectedBins(adaptiveRatio));
    expect(view.confidence[2]!.bins.map((b) => b.count)).toEqual([0, 0, 0, 0, 2, 0, 1, 1, 1, 3]);
    for (const h of view.confidence) expect(h.bins.reduce((n, b) => n + b.count, 0) + h.noConfidence).toBe(h.labels);

    // The run page: the same histograms of that run alone.
    const ofRun = await caller().run.confidence({ id: adaptive.id });
    expect(ofRun).toEqual({
      runId: adaptive.id,
      kind: "annotate",
      histograms: view.confidence.filter((h) => h.runId === adaptive.id).map(({ runLabel: _, ...h }) => h),
    });
    expect(await caller().run.confidence({ id: judge.id })).toEqual({ runId: judge.id, kind: "judge", histograms: [] });
    expect(await caller().run.confidence({ id: imported.id })).toEqual({ runId: imported.id, kind: "import", histograms: [] });
    const empty = await run("annotate", "2026-02-06T00:00:00Z", annotateConfig({ strategy: "fixed", rollouts: 4 }));
    expect((await caller().run.confidence({ id: empty.id })).histograms).toEqual([]);
  });

  it("names a missing run", async () => {
    await expect(caller().run.confidence({ id: "no-such-run" })).rejects.toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("no-such-run") });
  });
});
