import { createWorldDatabase, type SimulatedWorld } from "@stepwiser/jobs/testing/simulated-world";
import { DEFAULT_LABEL_CONFIDENCE_OPTIONS, DEFAULT_LABEL_RULES, labelConfidences, labelsFromStoredValues, storedLabelRule, storedPrefixEvidence, storedSolutionValues } from "@stepwiser/core";
import type { TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory } from "../src";

/** On the finished simulated world: an annotate run (M = 4) and judge runs of K = 2, 3 and 1 samples. */
describe("solution inspector data", () => {
  let database: TestDatabase;
  let world: SimulatedWorld;
  beforeAll(async () => {
    ({ world, ...database } = await createWorldDatabase(inject("postgresAdminUrl")));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("returns chunks with every annotate run's Q-values and every judge's samples, and the rollouts behind a value", async () => {
    const { db } = database;
    const { datasetId } = world;
    const annotateRun = world.runs.annotate;
    // Samples per chunk of each judge run; the benchmark run's judge stops at its first Negative, so it is counted apart.
    const samplesPerChunk = new Map([
      [world.runs.judgeStrong, 2],
      [world.runs.judgeWeak, 3],
      [world.runs.judgeMedium, 1],
    ]);

    const solution = await db.solution.findFirstOrThrow({ where: { datasetId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, segmentations: { select: { id: true, _count: { select: { chunks: true } } } } } });
    const k = solution.segmentations[0]!._count.chunks;
    const caller = createCallerFactory(appRouter)({ db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
    const view = await caller.solution.inspect({ id: solution.id });
    expect(view.segmentations[0]!.chunks).toHaveLength(k);
    expect(view.annotateRuns).toHaveLength(1);
    expect(view.annotateRuns[0]).toMatchObject({ runId: annotateRun, kind: "annotate", strategy: "fixed", rollouts: 4 });
    expect(view.annotateRuns[0]!.values.map((v) => v.prefixLength)).toEqual(Array.from({ length: k + 1 }, (_, i) => i));
    expect(view.judgements.map((j) => j.runId).sort()).toEqual([...samplesPerChunk.keys(), world.runs.benchmark].sort());
    for (const judgement of view.judgements) {
      const stored = await db.judgeSample.count({ where: { runId: judgement.runId, chunk: { segmentation: { solutionId: solution.id } } } });
      expect(judgement.samples).toHaveLength(stored);
      if (judgement.runId !== world.runs.benchmark) expect(stored).toBe(k * samplesPerChunk.get(judgement.runId)!);
    }
    expect(view.judgements[0]!.samples[0]!.rationale).toContain("Final Judgment");
    // Each judge run names the prompt template it asked with, as its stored config does.
    for (const judgement of view.judgements) expect(judgement.promptTemplateId).toMatch(/^stepwiser-judge@v\d+$/);

    // The run's stored labels with their confidence, per rule, and the counts and options the browser recomputes them from.
    const inspected = view.annotateRuns[0]!;
    expect(inspected.labelConfidence).toEqual(DEFAULT_LABEL_CONFIDENCE_OPTIONS);
    for (const v of inspected.values) expect(v.qValue).toBeCloseTo(v.rolloutCount > 0 ? v.correctCount / v.rolloutCount : v.correctCount > 0 ? 1 : 0, 12);
    const chunkIds = view.segmentations[0]!.chunks.map((c) => c.id);
    const stored = await db.chunkLabel.findMany({ where: { runId: annotateRun, chunkId: { in: chunkIds } }, select: { chunkId: true, rule: true, paramsKey: true, label: true, confidence: true } });
    expect(inspected.labels).toHaveLength(k * 3);
    expect(inspected.labels).toEqual(expect.arrayContaining(stored));
    const relRatio = DEFAULT_LABEL_RULES["rel-ratio"];
    const relRatioKey = storedLabelRule(relRatio);
    const storedConfidences = chunkIds.map((id) => inspected.labels.find((l) => l.chunkId === id && l.rule === relRatioKey.rule && l.paramsKey === relRatioKey.paramsKey)!.confidence);
    expect(storedConfidences.every((c) => c !== null && c >= 0 && c <= 1)).toBe(true);
    const live = labelsFromStoredValues(relRatio, storedSolutionValues(inspected.values, k))!;
    expect(labelConfidences(relRatio, live, storedPrefixEvidence(inspected.values, k), inspected.labelConfidence)).toEqual(storedConfidences);

    const rollouts = await caller.rollout.list({ runId: annotateRun, segmentationId: solution.segmentations[0]!.id, prefixLength: 1 });
    expect(rollouts).toHaveLength(4);
    expect(rollouts.filter((r) => r.correct).length / 4).toBe(view.annotateRuns[0]!.values[1]!.qValue);
  });
});
