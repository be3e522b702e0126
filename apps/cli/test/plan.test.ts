import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients, type AnnotatePlan } from "@stepwiser/jobs";
import { fitMixturePrior, projectAnnotationStorage, ROLLOUT_STORAGE_MODEL } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, runCli } from "./run-cli";

describe("stepwiser plan annotate", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let scratch: string;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 500 });
    await database.db.endpoint.create({ data: { name: "sim-policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    endpoints = new EndpointClients();
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "plan-cli", problems: 6, seed: 120 }));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-plan-"));
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  const env = () => ({ DATABASE_URL: database.url });
  async function configFile(name: string, config: object): Promise<string> {
    const file = path.join(scratch, name);
    await writeFile(file, JSON.stringify(config));
    return file;
  }

  it("prints the plan as one JSON object: dataset statistics, estimate, where q came from, assumptions", async () => {
    const chunks = await database.db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    const fixed = await configFile("fixed.json", { datasetId, policyEndpoint: "sim-policy", strategy: "fixed", rollouts: 16 });
    const result = await runCliInProcess(["plan", "annotate", "--config", fixed, "--tokens-per-second", "2000", "--prefill-tokens-per-second", "20000"], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    const plan = jsonOf(result) as AnnotatePlan;
    expect(plan).toMatchObject({ strategy: "fixed", rollouts: 16, datasetId, segmentationMethod: "self-segmented", qValues: { source: "assumed" } });
    expect(plan.dataset).toMatchObject({ solutions: 6, chunks });
    for (const stat of ["mean", "p50", "p95", "max"] as const) expect(typeof plan.dataset.chunksPerSolution[stat]).toBe("number");
    expect(plan.dataset.tokensPerChunk.mean).toBeGreaterThan(0);
    expect(plan.dataset.promptTokens.mean).toBeGreaterThan(0);
    expect(plan.estimate).toMatchObject({ requests: chunks, rollouts: 16 * chunks });
    for (const field of ["requests", "rollouts", "promptTokens", "generatedTokens"] as const) expect(Number.isInteger(plan.estimate[field])).toBe(true);
    expect(plan.estimate.hours).toBeCloseTo((plan.estimate.generatedTokens / 2000 + plan.estimate.promptTokens / 20000) / 3600, 3);
    expect(plan.assumptions.length).toBeGreaterThanOrEqual(5);
    expect(plan.assumptions.join("\n")).toMatch(/tokens/);
    expect(plan.assumptions.join("\n")).toMatch(/maxTokens = 8192/);
    // The database size of the run's rows, under its policy (full by default) and under each policy.
    const perRollout = plan.estimate.generatedTokens / plan.estimate.rollouts;
    const projected = projectAnnotationStorage({ solutions: 6, chunks, rollouts: plan.estimate.rollouts, meanRolloutTokens: perRollout, labelRules: 3, rolloutText: "full" });
    expect(plan.storage.rolloutText).toBe("full");
    expect(plan.storage.totalBytes).toBeCloseTo(projected.totalBytes, -2);
    expect(plan.storage.rolloutBytes).toBeGreaterThan(plan.estimate.rollouts * ROLLOUT_STORAGE_MODEL.rolloutRowBytes);
    expect(plan.storage.rolloutBytes + plan.storage.otherBytes).toBe(plan.storage.totalBytes);
    expect(plan.storage.byPolicy.full.totalBytes).toBe(plan.storage.totalBytes);
    expect(plan.storage.byPolicy["answer-only"].totalBytes).toBe(Math.round(projected.otherBytes + plan.estimate.rollouts * ROLLOUT_STORAGE_MODEL.rolloutRowBytes));
    expect(plan.assumptions.join("\n")).toMatch(/database size/);
    const answerOnly = await configFile("answer-only.json", { datasetId, policyEndpoint: "sim-policy", strategy: "fixed", rollouts: 16, rolloutText: "answer-only" });
    const lean = jsonOf(await runCliInProcess(["plan", "annotate", "--config", answerOnly, "--tokens-per-second", "2000", "--prefill-tokens-per-second", "20000"], env())) as AnnotatePlan;
    expect(lean.storage).toMatchObject({ rolloutText: "answer-only", totalBytes: plan.storage.byPolicy["answer-only"].totalBytes });
    expect(lean.estimate).toEqual(plan.estimate);

    // Once a fixed run has finished, its Q-values are the source.
    const run = await createAndExecuteRun(database.db, { kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", strategy: "fixed", rollouts: 4, labelRules: [{ rule: "abs-q" }] } }, { endpoints });
    expect(run.status).toBe("completed");
    const early = await configFile("early.json", { datasetId, policyEndpoint: "sim-policy", strategy: "early-stop", rollouts: 16, earlyStopBatch: 4, labelRules: [{ rule: "abs-q" }] });
    const second = await runCliInProcess(["plan", "annotate", "--config", early, "--tokens-per-second", "2000"], env());
    expect(second.code, second.stderr).toBe(0);
    const earlyPlan = jsonOf(second) as AnnotatePlan;
    expect(earlyPlan).toMatchObject({ strategy: "early-stop", qValues: { source: `annotate run ${run.id}`, solutionsFromRun: 6 } });
    expect(earlyPlan.estimate.rollouts).toBeLessThan(plan.estimate.rollouts);

    // Adaptive is simulated (core's annotateAdaptive on Bernoulli(q) outcomes), and the plan says how.
    const adaptive = await configFile("adaptive.json", { datasetId, policyEndpoint: "sim-policy", strategy: "adaptive", adaptiveBatch: 4, maxRollouts: 16, targetConfidence: 0.9 });
    const third = await runCliInProcess(["plan", "annotate", "--config", adaptive, "--tokens-per-second", "2000"], env());
    expect(third.code, third.stderr).toBe(0);
    const adaptivePlan = jsonOf(third) as AnnotatePlan;
    expect(adaptivePlan).toMatchObject({ strategy: "adaptive", qValues: { source: `annotate run ${run.id}` }, adaptive: { adaptiveBatch: 4, maxRollouts: 16, simulation: { solutions: 6, sampledSolutions: 6, replicates: 4 } } });
    expect(adaptivePlan.estimate.rollouts).toBeGreaterThanOrEqual(4 * chunks);
    expect(adaptivePlan.estimate.rollouts).toBeLessThanOrEqual(16 * chunks);
    expect(adaptivePlan.assumptions.join("\n")).toMatch(/annotateAdaptive/);
  }, 120_000);

  it("bad usage and bad input exit 2 with a message naming the flag, file and field, or dataset", async () => {
    const good = await configFile("good.json", { datasetId, policyEndpoint: "sim-policy" });
    // As the executable: a shell sees exit 2, the message on stderr and nothing on stdout.
    const missingRate = await runCli(["plan", "annotate", "--config", good], { env: env() });
    expect(missingRate.code).toBe(2);
    expect(missingRate.stderr).toContain("--tokens-per-second");
    expect(missingRate.stdout).toBe("");

    const badRate = await runCliInProcess(["plan", "annotate", "--config", good, "--tokens-per-second", "fast"], env());
    expect(badRate.code).toBe(2);
    expect(badRate.stderr).toContain('--tokens-per-second must be a number, got "fast"');
    const zeroRate = await runCliInProcess(["plan", "annotate", "--config", good, "--tokens-per-second", "0"], env());
    expect(zeroRate.code).toBe(2);
    expect(zeroRate.stderr).toContain("--tokens-per-second must be a positive number");

    const noConfig = await runCliInProcess(["plan", "annotate", "--tokens-per-second", "100"], env());
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain("--config");
    const otherKind = await runCliInProcess(["plan", "judge", "--config", good, "--tokens-per-second", "100"], env());
    expect(otherKind.code).toBe(2);

    const bad = await configFile("bad.json", { datasetId, policyEndpoint: "sim-policy", rollouts: 0 });
    const badField = await runCliInProcess(["plan", "annotate", "--config", bad, "--tokens-per-second", "100"], env());
    expect(badField.code).toBe(2);
    expect(badField.stderr).toMatch(/bad\.json, field "rollouts"/);

    const unknown = await configFile("unknown.json", { datasetId: "no-such-dataset", policyEndpoint: "sim-policy" });
    const unknownDataset = await runCliInProcess(["plan", "annotate", "--config", unknown, "--tokens-per-second", "100"], env());
    expect(unknownDataset.code).toBe(2);
    expect(unknownDataset.stderr).toContain("dataset no-such-dataset does not exist");
  }, 120_000);

  it("prior fit prints the mixture prior fitted to an annotate run's counts; a wrong run exits 2 naming --run", async () => {
    const run = await createAndExecuteRun(database.db, { kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", strategy: "fixed", rollouts: 4, labelRules: [{ rule: "abs-q" }] } }, { endpoints });
    expect(run.status).toBe("completed");
    const result = await runCliInProcess(["prior", "fit", "--run", run.id], env());
    expect(result.code, result.stderr).toBe(0);
    const fitted = jsonOf(result) as { zero: number; one: number; a: number; b: number; prefixes: number; runId: string };
    const counts = (await database.db.chunkValue.findMany({ where: { runId: run.id, rolloutCount: { gt: 0 } } })).map((v) => ({ correct: v.correctCount, rollouts: v.rolloutCount }));
    expect(fitted).toEqual(JSON.parse(JSON.stringify({ ...fitMixturePrior(counts), runId: run.id })));
    const missing = await runCliInProcess(["prior", "fit", "--run", "no-such-run"], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('field "--run": run no-such-run does not exist');
    const usage = await runCliInProcess(["prior", "fit"], env());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("prior fit needs --run RUN");
  }, 120_000);
});
