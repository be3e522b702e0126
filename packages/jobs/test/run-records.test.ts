import { atScale } from "@stepwiser/config/test-scale";
import { applyLabelRule, majorityVerdict, type LabelRule } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "../src";

/**
 * Attempts of each unit of the run with a wrong key: a 401 fails every attempt alike, so by default one
 * attempt shows it without the pauses (2 s, then 4 s) before the engine's second and third; the full
 * scale makes the engine's three.
 */
const REFUSED_UNIT_ATTEMPTS = atScale({ default: 1, full: 3 });

/** What runs leave beside their results: per-solution stats for lists, progress over time, keys used but never stored. */
describe("run records", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  const KEY = "sk-sim-secret";
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000, apiKey: KEY });
    for (const [name, model, role] of [["policy", "sim-policy", "policy"], ["judge", "sim-judge-medium", "judge"]] as const) {
      await database.db.endpoint.create({ data: { name, model, role, baseUrls: [...cluster.urls], maxConcurrency: 32, apiKey: KEY } });
    }
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const launch = (kind: "annotate" | "judge", config: object, maxUnitAttempts?: number) =>
    createAndExecuteRun(database.db, { kind, config }, { endpoints, flushIntervalMs: 20, maxUnitAttempts });

  it("annotate runs store each solution's lowest Q, first Negative under the first rule and whether the rules disagree", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "stats-annotate", problems: 6, seed: 71, errorRate: 0.5 });
    const rules: LabelRule[] = [
      { rule: "rel-ratio", gamma: 0.8 },
      { rule: "rel-effective", alpha: 0.8, n: 8 },
    ];
    const run = await launch("annotate", { datasetId, policyEndpoint: "policy", rollouts: 6, labelRules: rules });
    expect(run.status).toBe("completed");
    expect(JSON.stringify(run.config)).not.toContain(KEY);

    const stats = await db.solutionRunStat.findMany({ where: { runId: run.id } });
    const segmentations = await db.segmentation.findMany({
      where: { solution: { datasetId } },
      select: { id: true, solutionId: true, _count: { select: { chunks: true } }, chunkValues: { where: { runId: run.id }, select: { prefixLength: true, qValue: true } } },
    });
    expect(stats).toHaveLength(segmentations.length);
    let disagreements = 0;
    for (const segmentation of segmentations) {
      const k = segmentation._count.chunks;
      const byLength = new Map(segmentation.chunkValues.map((v) => [v.prefixLength, v.qValue]));
      const q = Array.from({ length: k }, (_, i) => byLength.get(i + 1)!);
      const ratio = applyLabelRule(rules[0]!, byLength.get(0)!, q);
      const effective = applyLabelRule(rules[1]!, byLength.get(0)!, q);
      const stat = stats.find((s) => s.solutionId === segmentation.solutionId)!;
      expect(stat).toMatchObject({
        datasetId,
        chunkCount: k,
        qMin: Math.min(...q),
        firstNegative: ratio.indexOf("Negative"),
        negativeCount: ratio.filter((l) => l === "Negative").length,
        labelsDisagree: ratio.some((l, i) => l !== effective[i]),
      });
      if (stat.labelsDisagree) disagreements += 1;
    }
    expect(disagreements).toBeLessThan(segmentations.length); // the flag is not set on everything

    const samples = await db.runProgressSample.findMany({ where: { runId: run.id }, orderBy: { id: "asc" } });
    expect(samples.length).toBeGreaterThan(0);
    const last = samples.at(-1)!;
    expect(last.unitsDone).toBe(run.unitsDone);
    expect(last.completionTokens).toBe(run.completionTokens);
    for (let i = 1; i < samples.length; i++) {
      expect(samples[i]!.unitsDone).toBeGreaterThanOrEqual(samples[i - 1]!.unitsDone);
      expect(samples[i]!.completionTokens).toBeGreaterThanOrEqual(samples[i - 1]!.completionTokens);
    }
  });

  it("judge runs store each solution's first chunk voted Negative; a rotated key reaches the next run, a wrong one fails its units", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "stats-judge", problems: 4, seed: 72, errorRate: 0.5 });
    const run = await launch("judge", { datasetId, judgeEndpoint: "judge", samples: 3, temperature: 1 });
    expect(run.status).toBe("completed");
    const stats = await db.solutionRunStat.findMany({ where: { runId: run.id } });
    const chunks = await db.chunk.findMany({
      where: { segmentation: { solution: { datasetId } } },
      orderBy: { index: "asc" },
      select: { index: true, segmentation: { select: { solutionId: true } }, judgeSamples: { where: { runId: run.id }, select: { verdict: true } } },
    });
    expect(stats.length).toBeGreaterThan(0);
    for (const stat of stats) {
      const votes = chunks.filter((c) => c.segmentation.solutionId === stat.solutionId).map((c) => majorityVerdict(c.judgeSamples.map((s) => s.verdict)).verdict);
      expect(stat.chunkCount).toBe(votes.length);
      expect(stat.firstNegative).toBe(votes.indexOf("Negative"));
      expect(stat.qMin).toBeNull();
    }

    await db.endpoint.update({ where: { name: "judge" }, data: { apiKey: "sk-wrong" } });
    const refused = await launch("judge", { datasetId, judgeEndpoint: "judge", samples: 1 }, REFUSED_UNIT_ATTEMPTS);
    expect(refused.status).toBe("failed");
    const unit = await db.runUnit.findFirstOrThrow({ where: { runId: refused.id } });
    expect(unit.error).toMatch(/401/);
    expect(unit.attempts).toBe(REFUSED_UNIT_ATTEMPTS);
  });
});
