import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { fitMixturePrior, labelConfidences, labelsFromStoredValues, lowestConfidence, storedPrefixEvidence, storedSolutionValues, type LabelConfidenceOptions, type LabelRule } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSimWorldDataset, EndpointClients, executeRun, fitConfidencePriorFromRun, readRunConfig, relabelAnnotateRun, UNIT_RUN_KINDS, annotateKind, type AnnotateConfigInput } from "../src";

async function createRun(db: Db, config: AnnotateConfigInput) {
  const parsed = annotateKind.submitSchema.parse(config);
  const snapshot = await annotateKind.snapshot(db, parsed);
  return db.run.create({ data: { kind: "annotate", config: snapshot as object, datasetId: snapshot.datasetId } });
}

const RATIO: LabelRule = { rule: "rel-ratio", gamma: 0.7 };
const EFFECTIVE: LabelRule = { rule: "rel-effective", alpha: 0.8, n: 4 };

/** Every stored label of a run under one rule with its confidence, beside what core computes from the stored counts. */
async function storedAgainstRecomputed(db: Db, runId: string, rule: LabelRule, stored: "rel_ratio" | "rel_effective" | "abs_q", paramsKey: string, options?: LabelConfidenceOptions) {
  const segmentations = await db.segmentation.findMany({
    where: { chunkValues: { some: { runId } } },
    select: { id: true, solutionId: true, chunks: { orderBy: { index: "asc" }, select: { labels: { where: { runId, rule: stored, paramsKey }, select: { label: true, confidence: true } } } } },
  });
  const pairs: { stored: number | null; recomputed: number | null }[] = [];
  const lowest: { solutionId: string; expected: number | null }[] = [];
  for (const s of segmentations) {
    const rows = await db.chunkValue.findMany({ where: { runId, segmentationId: s.id } });
    const k = s.chunks.length;
    const labels = labelsFromStoredValues(rule, storedSolutionValues(rows, k))!;
    const expected = labelConfidences(rule, labels, storedPrefixEvidence(rows, k), options);
    s.chunks.forEach((c, i) => {
      expect(c.labels[0]!.label).toBe(labels[i]);
      pairs.push({ stored: c.labels[0]!.confidence, recomputed: expected[i]! });
    });
    lowest.push({ solutionId: s.solutionId, expected: lowestConfidence(expected) });
  }
  return { pairs, lowest };
}

describe("label confidence and the adaptive strategy in annotate runs", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 500 });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    endpoints = new EndpointClients();
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "sim", problems: 8, seed: 41 }));
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const base = () => ({ datasetId, policyEndpoint: "policy", seed: 3, concurrency: 4, labelRules: [RATIO, EFFECTIVE] });

  it("every label of a fixed run carries the confidence core computes from the stored counts, and each solution its lowest per rule", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), strategy: "fixed", rollouts: 8 });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    for (const [rule, stored, key] of [
      [RATIO, "rel_ratio", '{"gamma":0.7}'],
      [EFFECTIVE, "rel_effective", '{"alpha":0.8,"n":4}'],
    ] as const) {
      const { pairs, lowest } = await storedAgainstRecomputed(db, run.id, rule, stored, key);
      expect(pairs.length).toBeGreaterThan(20);
      for (const p of pairs) {
        expect(p.stored).not.toBeNull();
        expect(p.stored!).toBeCloseTo(p.recomputed!, 12);
      }
      // With 8 rollouts some labels are unsure.
      expect(pairs.some((p) => p.stored! < 0.9)).toBe(true);
      const rows = await db.solutionLabelConfidence.findMany({ where: { runId: run.id, rule: stored, paramsKey: key } });
      expect(rows).toHaveLength(8);
      for (const l of lowest) expect(rows.find((r) => r.solutionId === l.solutionId)!.lowestConfidence).toBeCloseTo(l.expected!, 12);
    }
  });

  it("relabel fills in the confidence of labels stored without one, and labels new rules with theirs", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), strategy: "fixed", rollouts: 4, labelRules: [RATIO], limit: 3 });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    // As a run stored before confidences existed left them.
    await db.chunkLabel.updateMany({ where: { runId: run.id }, data: { confidence: null } });
    await db.solutionLabelConfidence.deleteMany({ where: { runId: run.id } });
    await relabelAnnotateRun(db, run.id, [RATIO, { rule: "rel-ratio", gamma: 1.2 }]);
    expect(await db.chunkLabel.count({ where: { runId: run.id, confidence: null } })).toBe(0);
    const { pairs } = await storedAgainstRecomputed(db, run.id, RATIO, "rel_ratio", '{"gamma":0.7}');
    for (const p of pairs) expect(p.stored!).toBeCloseTo(p.recomputed!, 12);
    expect(await db.solutionLabelConfidence.count({ where: { runId: run.id } })).toBe(6);
  });

  it("adaptive: first batch everywhere, more only where a label is unsure, never past maxRollouts; real counts stored; same config, same rollouts", async () => {
    const { db } = database;
    const config = { ...base(), strategy: "adaptive" as const, adaptiveBatch: 4, maxRollouts: 16, targetConfidence: 0.9, limit: 4 };
    const first = await createRun(db, config);
    const second = await createRun(db, config);
    for (const run of [first, second]) await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    expect((await db.run.findUniqueOrThrow({ where: { id: first.id } })).status).toBe("completed");
    const values = await db.chunkValue.findMany({ where: { runId: first.id } });
    const sampled = values.filter((v) => v.rolloutCount > 0);
    for (const v of sampled) {
      expect(v.rolloutCount).toBeGreaterThanOrEqual(4);
      expect(v.rolloutCount).toBeLessThanOrEqual(16);
      expect(v.rolloutCount % 4).toBe(0);
      // The stored counts are the rollouts' own.
      const rollouts = await db.rollout.findMany({ where: { runId: first.id, segmentationId: v.segmentationId, prefixLength: v.prefixLength }, select: { correct: true, sampleIndex: true } });
      expect(rollouts.length).toBe(v.rolloutCount);
      expect(rollouts.filter((r) => r.correct).length).toBe(v.correctCount);
      expect(rollouts.map((r) => r.sampleIndex).sort((a, b) => a - b)).toEqual(Array.from({ length: v.rolloutCount }, (_, i) => i));
    }
    // Adaptive spends unevenly: some prefixes stop at the first batch, some go on.
    expect(sampled.some((v) => v.rolloutCount === 4)).toBe(true);
    expect(sampled.some((v) => v.rolloutCount > 4)).toBe(true);
    // Labels either reach the target or rest on a prefix that has used maxRollouts.
    const labels = await db.chunkLabel.findMany({ where: { runId: first.id }, select: { confidence: true } });
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.every((l) => l.confidence !== null)).toBe(true);
    const texts = async (runId: string) =>
      (await db.rollout.findMany({ where: { runId }, orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }, { sampleIndex: "asc" }], select: { text: true, seed: true } })).map((r) => `${r.seed}:${r.text}`);
    expect(await texts(second.id)).toEqual(await texts(first.id));
    // Every rule can be relabelled from the stored counts.
    const relabelled = await relabelAnnotateRun(db, first.id, [{ rule: "abs-q", evidence: "own-prefix" }]);
    expect(relabelled.labels).toBeGreaterThan(0);
  });

  it("adaptive with a spent token budget stops after every prefix's first batch", async () => {
    const { db } = database;
    const run = await createRun(db, { ...base(), strategy: "adaptive", adaptiveBatch: 2, maxRollouts: 32, targetConfidence: 0.99, tokenBudget: 1, limit: 2, concurrency: 1 });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(done.status).toBe("completed");
    const values = await db.chunkValue.findMany({ where: { runId: run.id, rolloutCount: { gt: 0 } } });
    // The first round spends tokens; no prefix gets a second batch.
    expect(values.length).toBeGreaterThan(2);
    expect(values.every((v) => v.rolloutCount === 2)).toBe(true);
    expect(await db.chunkLabel.count({ where: { runId: run.id } })).toBeGreaterThan(0);
  });

  it("a run names a pilot run: its confidence prior is the mixture fitted to the pilot's counts, snapshotted, and its confidences use it", async () => {
    const { db } = database;
    const pilot = await createRun(db, { ...base(), strategy: "fixed", rollouts: 8, limit: 4 });
    await executeRun(db, pilot.id, UNIT_RUN_KINDS, { endpoints });
    const fitted = await fitConfidencePriorFromRun(db, pilot.id);
    const counts = (await db.chunkValue.findMany({ where: { runId: pilot.id, rolloutCount: { gt: 0 } } })).map((v) => ({ correct: v.correctCount, rollouts: v.rolloutCount }));
    // The same fit: the service reads the counts grouped in SQL, this test row by row, so sums may differ in the last bits.
    const expected = fitMixturePrior(counts);
    expect(fitted).toMatchObject({ runId: pilot.id, prefixes: expected.prefixes });
    for (const key of ["zero", "one", "a", "b", "logLikelihood"] as const) expect(fitted[key]).toBeCloseTo(expected[key], 9);
    expect(fitted.prefixes).toBe(counts.length);

    const run = await createRun(db, { ...base(), strategy: "fixed", rollouts: 8, confidencePriorFromRun: pilot.id });
    const config = readRunConfig({ id: run.id, kind: "annotate", config: run.config });
    expect(config.labelConfidence).toEqual({ prior: "mixture", absQEpsilon: 0.01, mixture: { zero: fitted.zero, one: fitted.one, a: fitted.a, b: fitted.b } });
    await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
    const { pairs } = await storedAgainstRecomputed(db, run.id, RATIO, "rel_ratio", '{"gamma":0.7}', config.labelConfidence);
    const jeffreys = await storedAgainstRecomputed(db, run.id, RATIO, "rel_ratio", '{"gamma":0.7}');
    for (const p of pairs) expect(p.stored!).toBeCloseTo(p.recomputed!, 12);
    // The prior matters: some stored confidence differs from what Jeffreys would give.
    expect(pairs.some((p, i) => Math.abs(p.stored! - jeffreys.pairs[i]!.recomputed!) > 1e-3)).toBe(true);

    // Only an annotate run with counts can be a pilot, and the field is named.
    await expect(createRun(db, { ...base(), confidencePriorFromRun: "no-such-run" })).rejects.toMatchObject({ location: { field: "confidencePriorFromRun" } });
    const judgeLike = await db.run.create({ data: { kind: "judge", config: {}, datasetId } });
    await expect(createRun(db, { ...base(), confidencePriorFromRun: judgeLike.id })).rejects.toThrow(/is a judge run/);
  });

  it("refuses adaptive settings that cannot work, naming the field", () => {
    const parse = (extra: Partial<AnnotateConfigInput>) => annotateKind.submitSchema.safeParse({ ...base(), strategy: "adaptive", ...extra });
    const small = parse({ adaptiveBatch: 8, maxRollouts: 4 });
    expect(small.success).toBe(false);
    expect(small.error!.issues[0]!.path).toEqual(["maxRollouts"]);
    const greedy = parse({ temperature: 0 });
    expect(greedy.success).toBe(false);
    expect(greedy.error!.issues[0]!.message).toMatch(/maxRollouts is 32 but temperature is 0/);
    expect(parse({ targetConfidence: 1 }).success).toBe(false);
    // Early-stop still estimates Abs-Q only.
    const early = annotateKind.submitSchema.safeParse({ ...base(), strategy: "early-stop" });
    expect(early.error!.issues[0]!.message).toMatch(/"fixed" or "adaptive"/);
  });
});
