import { buildSelfSegmentingPolicyPrompt, derivedSeed, SegmentationError, solutionFromTaggedOutput } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { connectJobQueue, createSimWorldDataset, isTerminal, queueSettingsFromEnv, submitRun } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chaosSeed,
  FAST_RECOVERY_ENV,
  printChaosSummary,
  recordAnnotateRows,
  RowLedger,
  seededUniform,
  waitFor,
  waitForRunEnd,
  WorkerFleet,
  type WorkerProcess,
} from "./chaos-harness";

/**
 * Workers are SIGKILLed at seeded random points of generate, annotate, judge
 * and benchmark runs; after a restart every run completes with exactly the
 * rows its configuration implies, each stored once. Two files run it, two kinds
 * each (chaos-kill-generation, chaos-kill-judging), so each stays under a minute.
 */

const SEED = chaosSeed(20261125);
/** A kill lands once the run has stored this share of its results (uniform, seeded). */
const KILL_SHARE = { min: 0.05, max: 0.75 };
const GENERATE = { samplesPerProblem: 4, temperature: 1, seed: 17 };
const ROLLOUTS = 4;
const JUDGE_SAMPLES = 2;
/** A restarted worker finds the run by the units nobody holds, looking this often. */
const WORKER_ENV = { ...FAST_RECOVERY_ENV, STEPWISER_RUN_JOIN_SECONDS: "0.5" };

export type Kind = "generate" | "annotate" | "judge" | "benchmark";

/** The sizes a file runs the suite at (each test file reads them through `atScale`, so `pnpm bench test-scale` runs it at full size). */
export interface KillSuiteScale {
  /** One kill at a random point proves a kind's run survives it; the full scale kills five times per run. */
  killsPerKind: number;
  problems: number;
  /** The kills follow each run's stored results, not the clock: the default scale runs the cluster three times as fast. */
  timeScale: number;
}

/** The kill suite over `kinds`, in this order (the seed's kill points follow it). */
export function describeKillSuite(kinds: readonly Kind[], postgresAdminUrl: () => string, scale: KillSuiteScale): void {
const { killsPerKind: KILLS_PER_KIND, problems: PROBLEMS, timeScale: TIME_SCALE } = scale;
describe(`workers SIGKILLed at random points of ${kinds.join(" and ")} runs`, () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let fleet: WorkerFleet;
  let datasetId: string;
  let solutions: number;
  const ledger = new RowLedger();
  const kills = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<Kind, number>;
  let completed = 0;
  const durations: Partial<Record<Kind, number>> = {};
  /**
   * The worker that finished the previous kind's run (or the one started with the suite), left running:
   * it takes the next run's job at once and is that run's first worker, killed inside it like any other
   * (one worker start fewer per kind).
   */
  let idle: WorkerProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(postgresAdminUrl());
    // The first run's worker loads its code while the cluster and the dataset are made.
    fleet = new WorkerFleet(database.url, WORKER_ENV);
    idle = fleet.start("first");
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: TIME_SCALE });
    const baseUrls = [...cluster.urls];
    await database.db.endpoint.createMany({
      data: [
        { name: "policy", model: "sim-policy", role: "policy", baseUrls, maxConcurrency: 8 },
        { name: "judge", model: "sim-judge-medium", role: "judge", baseUrls, maxConcurrency: 8 },
      ],
    });
    ({ datasetId, solutions } = await createSimWorldDataset(database.db, { name: "chaos", problems: PROBLEMS, seed: SEED % 1000 }));
  });

  afterAll(async () => {
    await fleet?.killAll();
    await cluster?.stop();
    await database?.drop();
    const total = Object.values(kills).reduce((a, b) => a + b, 0);
    printChaosSummary({
      suite: "chaos kill",
      seed: SEED,
      kills: total,
      runsCompleted: completed,
      ledger,
      extra: `CHAOS_SEED=${SEED} replays these kill points; kills by kind: ${Object.entries(kills).map(([kind, n]) => `${kind} ${n}`).join(", ")}; seconds by kind: ${Object.entries(durations).map(([kind, s]) => `${kind} ${s}`).join(", ")}`,
    });
  });

  const random = seededUniform(SEED);

  /**
   * Starts the run and kills its worker KILLS_PER_KIND times, each once the run's stored results pass a
   * seeded random share of their total (so every kill lands inside the work, wherever the machine's
   * speed puts it), then lets a last worker finish it; that worker stays for the next kind's run.
   */
  async function runThroughKills(kind: Kind, config: Record<string, unknown>, results: { total: number; stored: (runId: string) => Promise<number> }) {
    const { db } = database;
    const env = { ...process.env, ...FAST_RECOVERY_ENV };
    const queue = await connectJobQueue(database.url, queueSettingsFromEnv(env));
    const started = Date.now();
    const run = await submitRun(db, queue, { kind, config });
    await queue.stop({ graceful: false, wait: true });

    const thresholds = Array.from({ length: KILLS_PER_KIND }, () => Math.ceil(results.total * (KILL_SHARE.min + random() * (KILL_SHARE.max - KILL_SHARE.min)))).sort((a, b) => a - b);
    for (const [k, threshold] of thresholds.entries()) {
      const worker = k === 0 && idle ? idle : fleet.start(`${kind}-${k}`);
      idle = undefined;
      const ended = async () => isTerminal((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status);
      await waitFor(`the ${kind} run to store ${threshold} of ${results.total} results`, async () => (await results.stored(run.id)) >= threshold || (await ended()), 60_000, 50);
      // A kill after the end would prove nothing: the thresholds stay below the total.
      expect(await ended(), `${kind} run ended before kill ${k + 1} (seed ${SEED})`).toBe(false);
      await fleet.kill(worker);
      kills[kind] += 1;
    }
    const last = fleet.start(`${kind}-final`);
    const finished = await waitForRunEnd(db, run.id, 120_000);
    idle = last;
    durations[kind] = Math.round((Date.now() - started) / 1000);
    expect(finished.status, `${kind} run (seed ${SEED}): ${finished.error ?? ""}`).toBe("completed");
    expect(finished.unitsFailed).toBe(0);
    expect(finished.unitsDone).toBe(finished.unitsTotal);
    completed += 1;
    return finished;
  }

  const chunkTotal = (db: Db) => db.chunk.count({ where: { segmentation: { method: "self-segmented", solution: { datasetId } } } });

  if (kinds.includes("generate")) {
  it("generate: every problem's samples, segmentations and chunks stored once", { timeout: 150_000 }, async () => {
    const { db } = database;
    const expected = await expectedGeneration(db, datasetId);
    const run = await runThroughKills(
      "generate",
      { datasetId, policyEndpoint: "policy", ...GENERATE, concurrency: 2 },
      { total: expected.solutions, stored: (runId) => db.solution.count({ where: { runId } }) },
    );
    const stored = await db.solution.findMany({ where: { runId: run.id }, select: { id: true, externalId: true } });
    ledger.record("generated solutions", expected.solutions, stored.length, new Set(stored.map((t) => t.externalId)).size);
    const problems = await db.problem.findMany({ where: { solutions: { some: { runId: run.id } } }, select: { textHash: true } });
    ledger.record("generated problems", PROBLEMS, problems.length, new Set(problems.map((p) => p.textHash)).size);
    const segmentations = await db.segmentation.findMany({ where: { runId: run.id }, select: { solutionId: true } });
    ledger.record("generated segmentations", expected.segmented, segmentations.length, new Set(segmentations.map((s) => s.solutionId)).size);
    const chunks = await db.chunk.findMany({ where: { segmentation: { runId: run.id } }, select: { segmentationId: true, index: true } });
    ledger.record("generated chunks", expected.chunks, chunks.length, new Set(chunks.map((c) => `${c.segmentationId}:${c.index}`)).size);
    ledger.expectExact();
  });
  }

  if (kinds.includes("annotate")) {
  it("annotate: one rollout per (prefix, sample), one value per prefix, one label per chunk and rule", { timeout: 150_000 }, async () => {
    const { db } = database;
    const chunks = await chunkTotal(db);
    const run = await runThroughKills(
      "annotate",
      { datasetId, policyEndpoint: "policy", rollouts: ROLLOUTS, seed: 3, strategy: "fixed", concurrency: 2 },
      { total: chunks * ROLLOUTS, stored: (runId) => db.rollout.count({ where: { runId } }) },
    );
    await recordAnnotateRows(db, ledger, run.id, { chunks, solutions, rollouts: ROLLOUTS });
    ledger.expectExact();
  });
  }

  if (kinds.includes("judge")) {
  it("judge: K samples and one verdict per chunk sample, one stat per solution", { timeout: 150_000 }, async () => {
    const { db } = database;
    const judgeSamples = { total: (await chunkTotal(db)) * JUDGE_SAMPLES, stored: (runId: string) => db.judgeSample.count({ where: { runId } }) };
    const run = await runThroughKills("judge", { datasetId, judgeEndpoint: "judge", samples: JUDGE_SAMPLES, temperature: 1, seed: 5, concurrency: 2 }, judgeSamples);
    const samples = await db.judgeSample.findMany({ where: { runId: run.id }, select: { chunkId: true, sampleIndex: true } });
    ledger.record("judge samples", (await chunkTotal(db)) * JUDGE_SAMPLES, samples.length, new Set(samples.map((s) => `${s.chunkId}:${s.sampleIndex}`)).size);
    const stats = await db.solutionRunStat.findMany({ where: { runId: run.id }, select: { solutionId: true } });
    ledger.record("judged solutions", solutions, stats.length, new Set(stats.map((s) => s.solutionId)).size);
    ledger.expectExact();
  });
  }

  if (kinds.includes("benchmark")) {
  it("benchmark: every chunk judged K times and one prediction per solution", { timeout: 150_000 }, async () => {
    const { db } = database;
    const run = await runThroughKills("benchmark", {
      datasetId,
      judgeEndpoint: "judge",
      segmentationMethod: "self-segmented",
      samples: JUDGE_SAMPLES,
      temperature: 1,
      seed: 7,
      stopAtFirstNegative: false,
      bootstrap: { resamples: 100 },
      concurrency: 2,
    }, { total: (await chunkTotal(db)) * JUDGE_SAMPLES, stored: (runId) => db.judgeSample.count({ where: { runId } }) });
    const samples = await db.judgeSample.findMany({ where: { runId: run.id }, select: { chunkId: true, sampleIndex: true } });
    ledger.record("benchmark judge samples", (await chunkTotal(db)) * JUDGE_SAMPLES, samples.length, new Set(samples.map((s) => `${s.chunkId}:${s.sampleIndex}`)).size);
    const predictions = await db.solutionPrediction.findMany({ where: { runId: run.id }, select: { solutionId: true } });
    ledger.record("predictions", solutions, predictions.length, new Set(predictions.map((p) => p.solutionId)).size);
    ledger.expectExact();
  });
  }

  it("every kind's run was killed as often as planned", () => {
    for (const kind of kinds) expect(kills[kind], kind).toBe(KILLS_PER_KIND);
  });

  /**
   * What a clean generate run of GENERATE stores: the sim policy's samples for
   * each problem, with the seeds a run derives (run seed, problem text hash),
   * parsed into chunks the same way.
   */
  async function expectedGeneration(db: Db, sourceDatasetId: string) {
    const policy = createSimModels().find((m) => m.id === "sim-policy")!;
    const problems = await db.problem.findMany({ where: { datasetId: sourceDatasetId }, select: { text: true, textHash: true } });
    let solutions = 0;
    let segmented = 0;
    let chunks = 0;
    for (const problem of problems) {
      const base = derivedSeed(GENERATE.seed, "generate", problem.textHash);
      const messages = [{ role: "user" as const, content: buildSelfSegmentingPolicyPrompt({ problem: problem.text }).text }];
      for (let i = 0; i < GENERATE.samplesPerProblem; i++) {
        solutions += 1;
        const text = policy.generate({ prompt: { kind: "chat", messages, continueFinalMessage: false }, seed: base + i, temperature: GENERATE.temperature });
        try {
          chunks += solutionFromTaggedOutput(text).chunks.length;
          segmented += 1;
        } catch (error) {
          if (!(error instanceof SegmentationError)) throw error;
        }
      }
    }
    return { solutions, segmented, chunks };
  }
});
}
