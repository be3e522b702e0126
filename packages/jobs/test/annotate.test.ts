import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { sumServerMetric } from "@stepwiser/inference";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { generateOutputDatasetId } from "../src/kinds/generate/output-dataset";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients, executeRun, readRunConfig, relabelAnnotateRun, UNIT_RUN_KINDS, annotateKind, type AnnotateConfigInput } from "../src";
import { LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID } from "@stepwiser/core";

async function createRun(db: Db, config: AnnotateConfigInput) {
  const parsed = annotateKind.submitSchema.parse(config);
  const snapshot = await annotateKind.snapshot(db, parsed);
  return db.run.create({ data: { kind: "annotate", config: snapshot as object, datasetId: snapshot.datasetId } });
}

/** Labels of a run under one rule, per solution, in chunk order. */
const OWN = '{"evidence":"own-prefix"}';
const LATER = '{"evidence":"later-prefixes"}';

async function labelsOf(db: Db, runId: string, rule: "abs_q" | "rel_ratio" | "rel_effective", paramsKey = OWN) {
  const rows = await db.chunkLabel.findMany({
    where: { runId, rule, paramsKey },
    select: { label: true, chunk: { select: { index: true, segmentationId: true } } },
  });
  const bySolution = new Map<string, string[]>();
  for (const row of rows) {
    const list = bySolution.get(row.chunk.segmentationId) ?? [];
    list[row.chunk.index] = row.label;
    bySolution.set(row.chunk.segmentationId, list);
  }
  return bySolution;
}

describe("annotate runs on the simulated world", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 500 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    endpoints = new EndpointClients();
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "sim", problems: 12, seed: 40 }));
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const base = () => ({ datasetId, policyEndpoint: "policy", rollouts: 8, seed: 5, concurrency: 4 });

  it("resumes a run stored under the previous release's config shape as it was stored", async () => {
    const { db } = database;
    const few = await db.segmentation.findMany({ where: { solution: { datasetId } }, orderBy: { id: "asc" }, take: 2, select: { solutionId: true } });
    const current = (await annotateKind.snapshot(
      db,
      annotateKind.submitSchema.parse({ ...base(), rollouts: 2, strategy: "fixed", solutionIds: few.map((s) => s.solutionId) }),
    )) as Record<string, unknown>;
    // As an earlier release stored it: no policy prompt named (runs before the choice used the legacy
    // self-segmenting prompt), greedy sampling with two rollouts, which submissions now refuse, and the
    // selected solutions under their former field name.
    const { promptTemplateId: _, solutionIds, ...rest }: Record<string, unknown> = { ...current, temperature: 0 };
    const older = { ...rest, trajectoryIds: solutionIds };
    expect(() => annotateKind.submitSchema.parse(older)).toThrow(/temperature/);
    const stored = await db.run.create({ data: { kind: "annotate", config: older as object, datasetId } });
    expect(readRunConfig({ ...stored, kind: "annotate" }).promptTemplateId).toBe(LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID);
    await executeRun(db, stored.id, UNIT_RUN_KINDS, { endpoints });
    const resumed = await db.run.findUniqueOrThrow({ where: { id: stored.id } });
    expect({ status: resumed.status, error: resumed.error }).toEqual({ status: "completed", error: null });
    expect(await db.rollout.count({ where: { runId: stored.id } })).toBeGreaterThan(0);
    // Only the two solutions it selected were annotated, as when it was stored.
    const annotated = await db.solutionRunStat.findMany({ where: { runId: stored.id }, select: { solutionId: true } });
    expect(annotated.map((a) => a.solutionId).sort()).toEqual(few.map((s) => s.solutionId).sort());
  });

  it("rolloutText answer-only: the same rollouts, answers, Q-values and labels as full, without the texts", async () => {
    const { db } = database;
    const few = await db.segmentation.findMany({ where: { solution: { datasetId } }, orderBy: { id: "asc" }, take: 4, select: { solutionId: true } });
    const scope = { ...base(), rollouts: 4, strategy: "fixed" as const, solutionIds: few.map((s) => s.solutionId) };
    const full = await createRun(db, scope);
    const answerOnly = await createRun(db, { ...scope, rolloutText: "answer-only" });
    expect((full.config as { rolloutText: string }).rolloutText).toBe("full");
    for (const run of [full, answerOnly]) await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const rows = async (runId: string) =>
      db.rollout.findMany({
        where: { runId },
        orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }, { sampleIndex: "asc" }],
        select: { segmentationId: true, prefixLength: true, sampleIndex: true, seed: true, text: true, extractedAnswer: true, correct: true, completionTokens: true },
      });
    const [kept, dropped] = await Promise.all([rows(full.id), rows(answerOnly.id)]);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((r) => typeof r.text === "string" && r.text.length > 0)).toBe(true);
    expect(dropped.every((r) => r.text === null)).toBe(true);
    expect(dropped).toEqual(kept.map((r) => ({ ...r, text: null })));
    const values = async (runId: string) => (await db.chunkValue.findMany({ where: { runId }, orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }], select: { segmentationId: true, prefixLength: true, qValue: true, correctCount: true } }));
    expect(await values(answerOnly.id)).toEqual(await values(full.id));
    for (const rule of ["abs_q", "rel_ratio", "rel_effective"] as const) {
      const params = rule === "abs_q" ? OWN : rule === "rel_ratio" ? '{"gamma":0.7}' : '{"alpha":0.8,"n":4}';
      const labels = await labelsOf(db, full.id, rule, params);
      expect(labels.size).toBe(4);
      expect(await labelsOf(db, answerOnly.id, rule, params)).toEqual(labels);
    }
  });

  it("fixed: M rollouts per prefix, one Q-value per prefix, labels under every rule", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), strategy: "fixed" });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status).toBe("completed");
    const segmentations = await db.segmentation.findMany({ where: { solution: { datasetId } }, select: { id: true, _count: { select: { chunks: true } } } });
    const chunkTotal = segmentations.reduce((n, s) => n + s._count.chunks, 0);
    // prefixes 0..k-1 are sampled M times; prefix k is the solution itself
    expect(await db.rollout.count({ where: { runId: run.id } })).toBe(chunkTotal * 8);
    expect(await db.chunkValue.count({ where: { runId: run.id } })).toBe(chunkTotal + segmentations.length);
    expect(done.unitsDone).toBe(segmentations.length);
    expect(Number(done.completionTokens)).toBeGreaterThan(0);
    for (const rule of ["abs_q", "rel_ratio", "rel_effective"] as const) {
      const params = rule === "abs_q" ? OWN : rule === "rel_ratio" ? '{"gamma":0.7}' : '{"alpha":0.8,"n":4}';
      expect(await db.chunkLabel.count({ where: { runId: run.id, rule, paramsKey: params } })).toBe(chunkTotal);
    }
  });

  it("early-stop gives fixed's Abs-Q labels with fewer rollouts; first-error finds the same first Negative where outcomes are monotone and flags the rest", async () => {
    const { db } = database;
    const fixed = await createRun(db, { ...base(), strategy: "fixed", labelRules: [{ rule: "abs-q" }] });
    const early = await createRun(db, { ...base(), strategy: "early-stop", labelRules: [{ rule: "abs-q" }] });
    const search = await createRun(db, { ...base(), strategy: "first-error", labelRules: [{ rule: "abs-q" }] });
    for (const run of [fixed, early, search]) await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const fixedLabels = await labelsOf(db, fixed.id, "abs_q");
    expect(fixedLabels.size).toBe(12);
    expect(await labelsOf(db, early.id, "abs_q")).toEqual(fixedLabels);
    const searchLabels = await labelsOf(db, search.id, "abs_q");
    const flags = new Map(
      (await db.solutionRunStat.findMany({ where: { runId: search.id }, select: { monotonicity: true, solution: { select: { segmentations: { select: { id: true } } } } } })).map((s) => [s.solution.segmentations[0]!.id, s.monotonicity]),
    );
    for (const [id, labels] of fixedLabels) {
      const firstZero = labels.indexOf("Negative");
      const monotone = firstZero === -1 || !labels.slice(firstZero).includes("Positive");
      if (monotone) expect(searchLabels.get(id)!.indexOf("Negative")).toBe(firstZero);
      else expect(["assumed", "violated"]).toContain(flags.get(id));
      if (flags.get(id) === "violated" || flags.get(id) === "confirmed") expect(searchLabels.get(id)).toEqual(labels);
    }
    const summary = (await db.run.findUniqueOrThrow({ where: { id: search.id } })).summary as { monotonicity: { confirmed: number; assumed: number; violated: number } };
    expect(summary.monotonicity.confirmed + summary.monotonicity.assumed + summary.monotonicity.violated).toBe(12);
    const count = (runId: string) => db.rollout.count({ where: { runId } });
    expect(await count(early.id)).toBeLessThan(await count(fixed.id));
    expect(await count(search.id)).toBeLessThan(await count(fixed.id));
  });

  it("later-prefixes evidence is refused on solutions the run's policy did not generate, naming the field", async () => {
    const { db } = database;
    // The simulated-world dataset is written straight into the database, not by a generate run.
    const parsed = annotateKind.submitSchema.parse({ ...base(), absQEvidence: "later-prefixes" });
    await expect(annotateKind.snapshot(db, parsed)).rejects.toMatchObject({ location: { field: "absQEvidence" }, message: expect.stringContaining("was not written by a generate run") });
    const explicit = annotateKind.submitSchema.parse({ ...base(), labelRules: [{ rule: "abs-q" }, { rule: "abs-q", evidence: "later-prefixes" }] });
    await expect(annotateKind.snapshot(db, explicit)).rejects.toMatchObject({ location: { field: "labelRules.1.evidence" } });
    // Relabelling a finished run with it is refused the same way.
    const run = await createRun(db, { ...base(), strategy: "fixed", labelRules: [{ rule: "abs-q" }], limit: 2 });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    await expect(relabelAnnotateRun(db, run.id, [{ rule: "abs-q", evidence: "later-prefixes" }])).rejects.toMatchObject({ location: { field: "evidence" } });
    expect(await db.chunkLabel.count({ where: { runId: run.id, paramsKey: LATER } })).toBe(0);
  });

  it("on a generate run's own solutions both evidences are allowed and coexist; later-prefixes never has fewer Positives", async () => {
    const { db } = database;
    const generated = await createAndExecuteRun(db, { kind: "generate", config: { datasetId, policyEndpoint: "policy", samplesPerProblem: 2, filterMixed: false, seed: 3, limit: 6 } }, { endpoints });
    expect(generated.status).toBe("completed");
    const outputId = generateOutputDatasetId(generated.id);
    const run = await createRun(db, { datasetId: outputId, policyEndpoint: "policy", rollouts: 4, seed: 5, concurrency: 4, labelRules: [{ rule: "abs-q" }, { rule: "abs-q", evidence: "later-prefixes" }] });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const own = await labelsOf(db, run.id, "abs_q", OWN);
    const later = await labelsOf(db, run.id, "abs_q", LATER);
    expect(own.size).toBe(12);
    for (const [id, labels] of own) {
      const witnessed = later.get(id)!;
      labels.forEach((label, i) => {
        if (label === "Positive") expect(witnessed[i]).toBe("Positive");
        // later-prefixes: Positive iff this prefix or a later one succeeded
        expect(witnessed[i]).toBe(labels.slice(i).includes("Positive") ? "Positive" : "Negative");
      });
    }
    // A sim-policy endpoint under another model name is not "the run's own policy".
    await db.endpoint.create({ data: { name: "other-policy", model: "other-model", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 4 } });
    const other = annotateKind.submitSchema.parse({ datasetId: outputId, policyEndpoint: "other-policy", absQEvidence: "later-prefixes" });
    await expect(annotateKind.snapshot(db, other)).rejects.toMatchObject({ location: { field: "absQEvidence" }, message: expect.stringContaining('generate run of model "sim-policy"') });
  });

  it("relabels from stored Q-values with zero new requests", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), strategy: "fixed", labelRules: [{ rule: "rel-ratio", gamma: 0.7 }] });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const promptTokensBefore = await sumServerMetric(cluster.urls, "vllm:prompt_tokens_total");
    const result = await relabelAnnotateRun(db, run.id, [{ rule: "rel-ratio", gamma: 1.2 }, { rule: "rel-effective", alpha: 0.4, n: 4 }]);
    expect(result.solutions).toBe(12);
    expect(await sumServerMetric(cluster.urls, "vllm:prompt_tokens_total")).toBe(promptTokensBefore);
    const strict = await db.chunkLabel.count({ where: { runId: run.id, rule: "rel_ratio", paramsKey: '{"gamma":1.2}', label: "Negative" } });
    const lenient = await db.chunkLabel.count({ where: { runId: run.id, rule: "rel_ratio", paramsKey: '{"gamma":0.7}', label: "Negative" } });
    expect(strict).toBeGreaterThanOrEqual(lenient); // a higher γ can only add Negatives
    expect(await db.chunkLabel.count({ where: { runId: run.id, rule: "rel_effective", paramsKey: '{"alpha":0.4,"n":4}' } })).toBeGreaterThan(0);
  });

  it("the same config and seeds reproduce the same rollouts", async () => {
    const { db } = database;
    const first = await createRun(db, { ...base(), strategy: "fixed", labelRules: [{ rule: "abs-q" }], limit: 3 });
    const second = await createRun(db, { ...base(), strategy: "fixed", labelRules: [{ rule: "abs-q" }], limit: 3 });
    for (const run of [first, second]) await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const texts = async (runId: string) =>
      (await db.rollout.findMany({ where: { runId }, orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }, { sampleIndex: "asc" }], select: { text: true, seed: true } })).map((r) => `${r.seed}:${r.text}`);
    const a = await texts(first.id);
    expect(a.length).toBeGreaterThan(0);
    expect(await texts(second.id)).toEqual(a);
  });

  it("a unit that keeps failing is marked failed with its error, and the run goes on", async () => {
    const { db } = database;
    const { datasetId: broken } = await createSimWorldDataset(db, { name: "broken", problems: 3, seed: 70 });
    const victim = await db.problem.findFirstOrThrow({ where: { datasetId: broken } });
    await db.problem.update({ where: { id: victim.id }, data: { referenceAnswer: null } });
    const run = await createRun(db, { ...base(), datasetId: broken, strategy: "early-stop", labelRules: [{ rule: "abs-q" }] });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done).toMatchObject({ status: "completed_with_failures", unitsDone: 2, unitsFailed: 1 });
    const failed = await db.runUnit.findFirstOrThrow({ where: { runId: run.id, status: "failed" } });
    expect(failed).toMatchObject({ attempts: 3 });
    expect(failed.error).toContain("has no reference answer");
  });

  it("a cancelled run stops, and resuming it finishes without redoing done units", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), strategy: "fixed", concurrency: 1, rollouts: 16 });
    const execution = executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints, flushIntervalMs: 100 });
    await expect.poll(async () => db.runUnit.count({ where: { runId: run.id, status: "done" } }), { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    await db.run.update({ where: { id: run.id }, data: { cancelRequestedAt: new Date() } });
    await execution;
    const cancelled = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(cancelled.status).toBe("cancelled");
    const doneBefore = await db.runUnit.findMany({ where: { runId: run.id, status: "done" }, select: { key: true, updatedAt: true } });
    expect(doneBefore.length).toBeLessThan(12);

    await db.run.update({ where: { id: run.id }, data: { status: "queued", cancelRequestedAt: null, finishedAt: null } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const resumed = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(resumed.status).toBe("completed");
    const after = await db.runUnit.findMany({ where: { runId: run.id }, select: { key: true, status: true, updatedAt: true } });
    expect(after.every((u) => u.status === "done")).toBe(true);
    for (const unit of doneBefore) expect(after.find((u) => u.key === unit.key)!.updatedAt).toEqual(unit.updatedAt);
    const chunkTotal = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    expect(await db.rollout.count({ where: { runId: run.id } })).toBe(chunkTotal * 16);
  });
});
