import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "@stepwiser/jobs";
import { DEFAULT_LABEL_CONFIDENCE_OPTIONS, DEFAULT_LABEL_RULES, labelConfidences, labelsFromStoredValues, storedLabelRule, storedPrefixEvidence, storedSolutionValues } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory } from "../src";

describe("trajectory inspector data", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    for (const [name, role] of [["sim-policy", "policy"], ["sim-judge-strong", "judge"], ["sim-judge-weak", "judge"]] as const) {
      await database.db.endpoint.create({ data: { name, model: name, role, baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    }
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it("returns chunks with every annotate run's Q-values and every judge's samples, and the rollouts behind a value", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "inspect", problems: 2, seed: 4 });
    const launch = async (kind: "annotate" | "judge", config: object) => (await createAndExecuteRun(db, { kind, config: { datasetId, ...config } }, { endpoints })).id;
    const annotateRun = await launch("annotate", { datasetId, policyEndpoint: "sim-policy", rollouts: 4 });
    await launch("judge", { datasetId, judgeEndpoint: "sim-judge-strong", samples: 2, temperature: 1 });
    await launch("judge", { datasetId, judgeEndpoint: "sim-judge-weak", samples: 2, temperature: 1 });

    const trajectory = await db.trajectory.findFirstOrThrow({ where: { datasetId }, select: { id: true, segmentations: { select: { id: true, _count: { select: { chunks: true } } } } } });
    const k = trajectory.segmentations[0]!._count.chunks;
    const caller = createCallerFactory(appRouter)({ db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
    const view = await caller.trajectory.inspect({ id: trajectory.id });
    expect(view.segmentations[0]!.chunks).toHaveLength(k);
    expect(view.annotations).toHaveLength(1);
    expect(view.annotations[0]).toMatchObject({ runId: annotateRun, kind: "annotate", strategy: "fixed", rollouts: 4 });
    expect(view.annotations[0]!.values.map((v) => v.prefixLength)).toEqual(Array.from({ length: k + 1 }, (_, i) => i));
    expect(view.judgements.map((j) => j.judgeModel).sort()).toEqual(["sim-judge-strong", "sim-judge-weak"]);
    for (const judgement of view.judgements) expect(judgement.samples).toHaveLength(k * 2);
    expect(view.judgements[0]!.samples[0]!.rationale).toContain("Final Judgment");

    // The run's stored labels with their confidence, per rule, and the counts and options the browser recomputes them from.
    const annotation = view.annotations[0]!;
    expect(annotation.labelConfidence).toEqual(DEFAULT_LABEL_CONFIDENCE_OPTIONS);
    for (const v of annotation.values) expect(v.qValue).toBeCloseTo(v.rolloutCount > 0 ? v.correctCount / v.rolloutCount : v.correctCount > 0 ? 1 : 0, 12);
    const chunkIds = view.segmentations[0]!.chunks.map((c) => c.id);
    const stored = await db.chunkLabel.findMany({ where: { runId: annotateRun, chunkId: { in: chunkIds } }, select: { chunkId: true, rule: true, paramsKey: true, label: true, confidence: true } });
    expect(annotation.labels).toHaveLength(k * 3);
    expect(annotation.labels).toEqual(expect.arrayContaining(stored));
    const relRatio = DEFAULT_LABEL_RULES["rel-ratio"];
    const relRatioKey = storedLabelRule(relRatio);
    const storedConfidences = chunkIds.map((id) => annotation.labels.find((l) => l.chunkId === id && l.rule === relRatioKey.rule && l.paramsKey === relRatioKey.paramsKey)!.confidence);
    expect(storedConfidences.every((c) => c !== null && c >= 0 && c <= 1)).toBe(true);
    const live = labelsFromStoredValues(relRatio, storedSolutionValues(annotation.values, k))!;
    expect(labelConfidences(relRatio, live, storedPrefixEvidence(annotation.values, k), annotation.labelConfidence)).toEqual(storedConfidences);

    const rollouts = await caller.rollout.list({ runId: annotateRun, segmentationId: trajectory.segmentations[0]!.id, prefixLength: 1 });
    expect(rollouts).toHaveLength(4);
    expect(rollouts.filter((r) => r.correct).length / 4).toBe(view.annotations[0]!.values[1]!.qValue);
  });
});
