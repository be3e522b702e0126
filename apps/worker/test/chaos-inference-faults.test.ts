import { atScale } from "@stepwiser/config/test-scale";
import { buildStepwiserJudgePrompt, parseVerdict } from "@stepwiser/core";
import type { Run } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { EndpointPool, InferenceClient, InferenceError } from "@stepwiser/inference";
import { createSimModels, startSimCluster, type SimCluster, type SimFaultKind } from "@stepwiser/inference/sim";
import { connectJobQueue, createSimWorldDataset, queueSettingsFromEnv, submitRun } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { FAST_RECOVERY_ENV, injectedFaults, printChaosSummary, recordAnnotateRows, RowLedger, waitForRunEnd, WorkerFleet } from "./chaos-harness";

/**
 * Generate, annotate, judge and benchmark runs against a simulated cluster
 * that injects a fault into 10% of its completion requests, spread over every
 * kind it knows: each run completes with exact row counts, unreadable verdicts
 * are stored as unparseable, and an endpoint that always fails ends its run
 * after the configured retries.
 */

const FAULT_KINDS: readonly SimFaultKind[] = ["error5xx", "rateLimit", "hang", "drop", "malformed", "garbage", "empty", "verdictless"];
const RATE_PER_KIND = 0.1 / FAULT_KINDS.length;
const FAULT_SEED = 4;
const PROBLEMS = 30;
const SOLUTIONS_PER_PROBLEM = 2;
const ROLLOUTS = 4;
const JUDGE_SAMPLES = 2;
/** Hung requests are given up after this long; the simulated answers here take a fraction of it. */
const RESPONSE_TIMEOUT_SECONDS = 2;
/** The engine's attempts per unit and the inference client's attempts per request (their defaults). */
const UNIT_ATTEMPTS = 3;
const REQUEST_ATTEMPTS = 6;
/**
 * The clusters' speed: nothing here waits on a slow answer (a hung request waits for the client's
 * timeout at any speed), so the default scale runs the same requests twice as fast.
 */
const TIME_SCALE = atScale({ default: 40, full: 20 });

describe("runs against an inference cluster that fails 10% of requests in every way it can", () => {
  let database: TestDatabase;
  let faulty: SimCluster;
  let broken: SimCluster;
  let fleet: WorkerFleet;
  let datasetId: string;
  let solutions: number;
  const ledger = new RowLedger();
  let completed = 0;
  let faults: Partial<Record<SimFaultKind, number>> = {};
  let unparseable = 0;
  let failingRunSeconds: number | undefined;
  /** The run against the always-failing endpoint, with when it was submitted. */
  let failingRun: Promise<{ run: Run; started: number }> | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const rates = Object.fromEntries(FAULT_KINDS.map((kind) => [`${kind}Rate`, RATE_PER_KIND]));
    // One replica: one seeded stream of fault draws, so which kinds occur within the first N requests is fixed.
    // The worker loads its code while the clusters and the dataset are made.
    fleet = new WorkerFleet(database.url, {
      ...FAST_RECOVERY_ENV,
      STEPWISER_INFERENCE_RESPONSE_TIMEOUT_SECONDS: String(RESPONSE_TIMEOUT_SECONDS),
      // The four runs and the always-failing one at once.
      STEPWISER_RUN_JOBS_PER_WORKER: "5",
    });
    fleet.start("faults-worker");
    faulty = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: TIME_SCALE, faults: { ...rates, seed: FAULT_SEED, retryAfterSeconds: 0 } });
    broken = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: TIME_SCALE, faults: { error5xxRate: 1 } });
    await database.db.endpoint.createMany({
      data: [
        { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...faulty.urls], maxConcurrency: 8 },
        { name: "judge", model: "sim-judge-medium", role: "judge", baseUrls: [...faulty.urls], maxConcurrency: 8 },
        { name: "broken-judge", model: "sim-judge-medium", role: "judge", baseUrls: [...broken.urls], maxConcurrency: 8 },
      ],
    });
    ({ datasetId, solutions } = await createSimWorldDataset(database.db, { name: "faults", problems: PROBLEMS, solutionsPerProblem: SOLUTIONS_PER_PROBLEM, seed: 31 }));
  });

  afterAll(async () => {
    await fleet?.killAll();
    await faulty?.stop();
    await broken?.stop();
    await database?.drop();
    printChaosSummary({
      suite: "chaos inference faults",
      faults,
      kills: 0,
      runsCompleted: completed,
      ledger,
      extra: `unparseable verdicts stored ${unparseable}; always-failing endpoint: ${failingRunSeconds === undefined ? "not checked" : `run failed after ${UNIT_ATTEMPTS} × ${REQUEST_ATTEMPTS} attempts per unit in ${failingRunSeconds} s`}`,
    });
  });

  /**
   * Submits the run against the always-failing endpoint once: the first test starts it beside its own
   * runs (it spends most of its time in backoff pauses), the second waits for its end.
   */
  function submitFailingRun() {
    failingRun ??= (async () => {
      const queue = await connectJobQueue(database.url, queueSettingsFromEnv({ ...process.env, ...FAST_RECOVERY_ENV }));
      const started = Date.now();
      const run = await submitRun(database.db, queue, {
        kind: "benchmark",
        config: { datasetId, judgeEndpoint: "broken-judge", mode: "critic", segmentationMethod: "self-segmented", limit: 2, concurrency: 2 },
      });
      await queue.stop({ graceful: false, wait: true });
      return { run, started };
    })();
    return failingRun;
  }

  it("every run completes with exact counts, verdicts are read and never guessed, and every kind of fault was injected", { timeout: 180_000 }, async () => {
    const { db } = database;
    await submitFailingRun();
    const queue = await connectJobQueue(database.url, queueSettingsFromEnv({ ...process.env, ...FAST_RECOVERY_ENV }));
    const generate = await submitRun(db, queue, { kind: "generate", config: { datasetId, policyEndpoint: "policy", samplesPerProblem: 4, seed: 2, concurrency: 8 } });
    const annotate = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: ROLLOUTS, seed: 3, strategy: "fixed", concurrency: 8 } });
    const judge = await submitRun(db, queue, { kind: "judge", config: { datasetId, judgeEndpoint: "judge", samples: JUDGE_SAMPLES, temperature: 1, seed: 5, concurrency: 8 } });
    const benchmark = await submitRun(db, queue, {
      kind: "benchmark",
      config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", samples: JUDGE_SAMPLES, temperature: 1, seed: 7, stopAtFirstNegative: false, bootstrap: { resamples: 100 }, concurrency: 8 },
    });
    await queue.stop({ graceful: false, wait: true });

    for (const run of [generate, annotate, judge, benchmark]) {
      const finished = await waitForRunEnd(db, run.id, 150_000);
      expect(finished.status, `${run.kind}: ${finished.error ?? ""}`).toBe("completed");
      expect(finished.unitsFailed, run.kind).toBe(0);
      completed += 1;
    }
    faults = injectedFaults(faulty);

    const chunks = await db.chunk.count({ where: { segmentation: { method: "self-segmented", solution: { datasetId } } } });
    const problems = await db.problem.count({ where: { datasetId } });

    // generate: every sample stored once; a garbled sample is kept as written, without a segmentation.
    const generated = await db.solution.findMany({ where: { runId: generate.id }, select: { id: true, externalId: true, metadata: true } });
    ledger.record("generated solutions", problems * 4, generated.length, new Set(generated.map((t) => t.externalId)).size);
    const segmentable = generated.filter((t) => !(t.metadata as { segmentationError?: unknown }).segmentationError);
    const segmentations = await db.segmentation.findMany({ where: { runId: generate.id }, select: { solutionId: true } });
    ledger.record("generated segmentations", segmentable.length, segmentations.length, new Set(segmentations.map((s) => s.solutionId)).size);

    // annotate
    await recordAnnotateRows(db, ledger, annotate.id, { chunks, solutions, rollouts: ROLLOUTS });

    // judge and benchmark: every sample stored once, its verdict exactly what its text says.
    for (const run of [judge, benchmark]) {
      const samples = await db.judgeSample.findMany({ where: { runId: run.id }, select: { chunkId: true, sampleIndex: true, rationale: true, verdict: true } });
      ledger.record(`${run.kind} judge samples`, chunks * JUDGE_SAMPLES, samples.length, new Set(samples.map((s) => `${s.chunkId}:${s.sampleIndex}`)).size);
      const misread = samples.filter((s) => s.verdict !== parseVerdict(s.rationale).verdict);
      expect(misread, `${run.kind}: verdicts that differ from their text`).toEqual([]);
      const cut = samples.filter((s) => s.rationale === "" || s.rationale.endsWith("I cannot decide."));
      expect(cut.length, `${run.kind}: samples emptied or cut before their verdict`).toBeGreaterThan(0);
      expect(cut.every((s) => s.verdict === "unparseable")).toBe(true);
      unparseable += samples.filter((s) => s.verdict === "unparseable").length;
    }
    const judgeSummary = (await db.run.findUniqueOrThrow({ where: { id: judge.id } })).summary as { verdicts: Record<string, number> };
    expect(judgeSummary.verdicts.unparseable).toBe(await db.judgeSample.count({ where: { runId: judge.id, verdict: "unparseable" } }));
    const predictions = await db.solutionPrediction.findMany({ where: { runId: benchmark.id }, select: { solutionId: true } });
    ledger.record("predictions", solutions, predictions.length, new Set(predictions.map((p) => p.solutionId)).size);
    ledger.expectExact();

    // The cluster's own counters: every kind of fault happened, about 10% of requests in all.
    for (const kind of FAULT_KINDS) expect(faults[kind], `${kind} faults injected`).toBeGreaterThan(0);
    const requests = faulty.replicas.reduce((sum, r) => sum + r.metrics().requests, 0);
    const injected = Object.values(faults).reduce((a, b) => a + (b ?? 0), 0);
    expect(injected / requests).toBeGreaterThan(0.05);
    expect(injected / requests).toBeLessThan(0.15);
  });

  it("a run whose endpoint always fails ends failed after the configured attempts, with a bounded number of requests", { timeout: 90_000 }, async () => {
    const { db } = database;
    const { run, started } = await submitFailingRun();
    const finished = await waitForRunEnd(db, run.id, 80_000);
    expect(finished.status).toBe("failed");
    expect(finished.error).toMatch(/all 2 units failed/);
    const units = await db.runUnit.findMany({ where: { runId: run.id }, select: { status: true, attempts: true, error: true } });
    expect(units.map((u) => [u.status, u.attempts])).toEqual([
      ["failed", UNIT_ATTEMPTS],
      ["failed", UNIT_ATTEMPTS],
    ]);
    for (const unit of units) expect(unit.error).toMatch(new RegExp(`gave up after ${REQUEST_ATTEMPTS} attempts: .*(500|503)`));
    // One critic request per unit attempt, each tried REQUEST_ATTEMPTS times, and not one more.
    expect(broken.replicas[0]!.metrics().requests).toBe(2 * UNIT_ATTEMPTS * REQUEST_ATTEMPTS);
    expect(broken.replicas[0]!.metrics().faults.error5xx).toBe(2 * UNIT_ATTEMPTS * REQUEST_ATTEMPTS);
    // Bounded: 3 attempts of at most 5 backoffs (0.25 s doubling, ≤ 7.75 s in all), with pauses of 2 and 4 s between attempts.
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(60);
    failingRunSeconds = Math.round(seconds);
  });

  it("a stream cut mid-body surfaces as an error after its partial text, never as a finished answer", { timeout: 30_000 }, async () => {
    const dropping = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 20, faults: { dropRate: 1 } });
    try {
      const client = new InferenceClient(new EndpointPool([{ baseUrl: dropping.urls[0]!, maxInFlight: 4 }]), { retry: { maxAttempts: 1 } });
      const judgePrompt = buildStepwiserJudgePrompt({ problem: "What is 2 + 2?", previousChunks: [], chunk: "2 + 2 = 4, so the answer is 4." }).text;
      let partial = "";
      const outcome = await (async () => {
        for await (const event of client.stream({ model: "sim-judge-medium", prompt: { kind: "chat", messages: [{ role: "user", content: judgePrompt }] }, maxTokens: 200, seed: 1 })) {
          if (event.type === "done") return "finished";
          partial += event.text;
        }
        return "ended";
      })().catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(InferenceError);
      expect(partial.length).toBeGreaterThan(0);
      expect(dropping.replicas[0]!.metrics().faults.drop).toBe(1);
      await client.endpoints.close();
    } finally {
      await dropping.stop();
    }
  });
});
