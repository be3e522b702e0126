import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { atProfile, writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { peakResidentBytes, processCpuSeconds, processTreeCpuSeconds, repoRoot, startSimClusterProcess, stopProcess } from "@stepwiser/config/bench/processes";
import { createDb } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { connectJobQueue, createSimWorldDataset, isTerminal, liveWorkerCount, planAnnotateRun, readRunConfig, submitRun } from "../src";

/**
 * An annotate run of 100,000 solutions (300 in the quick profile; strategy
 * fixed, M = 16) executed to the end by one worker process (the production
 * entry point) against a simulated cluster faster than the worker, on one
 * embedded PostgreSQL: every count the run stores is checked exactly against
 * its plan, and the worker's peak resident memory shows whether anything holds
 * the whole run.
 */
/** STEPWISER_BENCH_SOLUTIONS sets the run's size in either profile; the release report is the 100,000-solution run. */
const SOLUTIONS = Number(process.env.STEPWISER_BENCH_SOLUTIONS ?? atProfile({ full: 100_000, quick: 300 }));
const M = 16;
const RUN_CONCURRENCY = 256;
const REPLICAS = 4;
const SEQUENCES_PER_REPLICA = 4096;
const TIME_SCALE = 100;
/** How often the run's progress and peak memory are read: a quick run lasts under a minute, so every second, to see the 5 % mark near 5 %. */
const POLL_MS = atProfile({ full: 5_000, quick: 1_000 });
const workerEnv = { STEPWISER_WORKER_HEARTBEAT_SECONDS: "1", STEPWISER_CAPACITY_REBALANCE_MS: "250", STEPWISER_QUEUE_POLL_SECONDS: "0.5" };

const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-annotate-scale-bench-"));
chmodSync(scratch, 0o755);
const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
const url = server.url("postgres");
await applyMigrations(url);
const db = createDb(url);
const cluster = await startSimClusterProcess({
  replicas: REPLICAS,
  timeScale: TIME_SCALE,
  capacity: { maxConcurrentSequences: SEQUENCES_PER_REPLICA, kvCacheTokens: 64 * 1_048_576 },
});
const queue = await connectJobQueue(url);
const worker = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
  cwd: repoRoot,
  stdio: ["ignore", "ignore", "inherit"],
  env: { ...process.env, ...workerEnv, DATABASE_URL: url, STEPWISER_WORKER_ID: "bench-scale" },
});
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

try {
  await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: cluster.urls, maxConcurrency: SEQUENCES_PER_REPLICA / M } });
  const datasetStarted = performance.now();
  const { datasetId, solutions: written } = await createSimWorldDataset(db, { name: "annotate scale", problems: SOLUTIONS, seed: 5_000_000 });
  const datasetMs = performance.now() - datasetStarted;
  console.error(`dataset: ${written} solutions in ${minutes(datasetMs)}`);
  const config = { datasetId, policyEndpoint: "policy", rollouts: M, strategy: "fixed" as const, seed: 1, concurrency: RUN_CONCURRENCY };
  const plan = await planAnnotateRun(db, config, { tokensPerSecond: 1 });

  for (const deadline = Date.now() + 60_000; (await liveWorkerCount(db, 1)) < 1; ) {
    if (Date.now() > deadline) throw new Error("the worker did not register");
    await new Promise((r) => setTimeout(r, 200));
  }
  const cpuBefore = processCpuSeconds(worker.pid!);
  const dbBefore = processTreeCpuSeconds(server.pid);
  const run = await submitRun(db, queue, { kind: "annotate", config });
  const started = performance.now();
  let peak = peakResidentBytes(worker.pid!);
  let clusterPeak = peakResidentBytes(cluster.pid);
  /** The peak once 5 % of the solutions are done: what the worker needs with its pools, caches and a full set of units in flight. */
  let earlyPeak: number | null = null;
  /** The machine's 1-minute load average at every poll: other work on the machine lengthens the wall time. */
  const loads: number[] = [];
  for (;;) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    loads.push(loadavg()[0]!);
    if (worker.exitCode !== null) throw new Error(`the worker exited with ${worker.exitCode}`);
    peak = Math.max(peak, peakResidentBytes(worker.pid!));
    clusterPeak = Math.max(clusterPeak, peakResidentBytes(cluster.pid));
    const state = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true, unitsDone: true, unitsTotal: true } });
    if (earlyPeak === null && state.unitsTotal && state.unitsDone >= state.unitsTotal * 0.05) earlyPeak = peak;
    console.error(`${minutes(performance.now() - started)}: ${state.status}, ${state.unitsDone} of ${state.unitsTotal ?? "?"} solutions, peak RSS ${gib(peak)}, cluster ${gib(clusterPeak)}`);
    if (isTerminal(state.status)) break;
  }
  const wallMs = performance.now() - started;
  const workerCpu = processCpuSeconds(worker.pid!) - cpuBefore;
  const dbCpu = processTreeCpuSeconds(server.pid) - dbBefore;
  peak = Math.max(peak, peakResidentBytes(worker.pid!));
  clusterPeak = Math.max(clusterPeak, peakResidentBytes(cluster.pid));

  const finished = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { id: true, config: true, status: true, unitsTotal: true, requests: true, summary: true } });
  const ruleCount = readRunConfig({ id: finished.id, kind: "annotate", config: finished.config }).labelRules.length;
  const [units, done, chunkValues, rollouts, labels, stats, samples] = await Promise.all([
    db.runUnit.count({ where: { runId: run.id } }),
    db.runUnit.count({ where: { runId: run.id, status: "done" } }),
    db.chunkValue.count({ where: { runId: run.id } }),
    db.rollout.count({ where: { runId: run.id } }),
    db.chunkLabel.count({ where: { runId: run.id } }),
    db.solutionRunStat.count({ where: { runId: run.id } }),
    db.runProgressSample.count({ where: { runId: run.id } }),
  ]);
  const { solutions, chunks } = plan.dataset;
  // Every prefix 0..k-1 gets M rollouts (one request of n = M); prefix k (the finished solution) is valued without any.
  const expected = {
    units: solutions,
    chunkValues: chunks + solutions,
    rollouts: plan.estimate.rollouts,
    requests: plan.estimate.requests,
    labels: chunks * ruleCount,
  };
  const exact = (metric: string, value: number, target: number): BenchmarkRow => ({ metric, value: value.toLocaleString("en"), target: `= ${target.toLocaleString("en")}`, met: value === target });
  const summary = finished.summary as { rollouts?: number; chunkValues?: number } | null;
  const rows: BenchmarkRow[] = [
    { metric: "run status", value: finished.status, target: "completed", met: finished.status === "completed" },
    exact("solutions in the dataset (written)", solutions, SOLUTIONS),
    exact("solutions in the plan (units planned)", units, solutions),
    exact("units done", done, solutions),
    exact("ChunkValue rows (prefixes 0..k of every solution)", chunkValues, expected.chunkValues),
    exact(`Rollout rows (prefixes 0..k−1 × M = ${M}: the plan's rollouts)`, rollouts, expected.rollouts),
    exact("requests (the run's counter; the plan's requests)", Number(finished.requests), expected.requests),
    exact(`ChunkLabel rows (chunks × ${ruleCount} default rules)`, labels, expected.labels),
    exact("SolutionRunStat rows", stats, solutions),
    exact("summary: rollouts", summary?.rollouts ?? -1, expected.rollouts),
    exact("summary: chunk values", summary?.chunkValues ?? -1, expected.chunkValues),
    { metric: "chunks per solution (mean)", value: (chunks / solutions).toFixed(2) },
    { metric: "dataset written in", value: minutes(datasetMs) },
    { metric: "run wall time (submitted → finished)", value: minutes(wallMs) },
    { metric: "machine load average (1 min) during the run: mean · highest", value: `${(loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length)).toFixed(2)} · ${Math.max(...loads).toFixed(2)} on ${availableParallelism()} cores` },
    { metric: "rollouts stored/s over the whole run", value: (rollouts / (wallMs / 1000)).toFixed(0) },
    { metric: "worker CPU over the run", value: `${(workerCpu / (wallMs / 1000)).toFixed(2)} cores (${((workerCpu * 1000) / rollouts).toFixed(3)} ms per rollout)` },
    { metric: "PostgreSQL CPU over the run", value: `${(dbCpu / (wallMs / 1000)).toFixed(2)} cores (${((dbCpu * 1000) / rollouts).toFixed(3)} ms per rollout)` },
    { metric: "progress samples written", value: samples.toLocaleString("en") },
    { metric: "worker peak RSS (VmHWM) once 5 % of the solutions were done", value: earlyPeak === null ? "not reached" : gib(earlyPeak) },
    {
      metric: "worker peak RSS (VmHWM) over the whole run",
      value: gib(peak),
      target: "≤ 1.25 × the peak at 5 % (memory does not grow with the run)",
      met: earlyPeak !== null && peak <= earlyPeak * 1.25,
    },
    { metric: "simulated cluster's peak RSS (VmHWM; not the product: see the limits)", value: gib(clusterPeak) },
  ];
  writeBenchmarkReport({
    name: "annotate-scale",
    title: `Annotate scale: a ${SOLUTIONS.toLocaleString("en")}-solution run on one worker`,
    method:
      `A simulated-world dataset of ${SOLUTIONS.toLocaleString("en")} solutions (\`createSimWorldDataset\`, one per problem) in an embedded PostgreSQL, annotated by one annotate run (strategy fixed, M = ${M}, one request of n = ${M} per prefix, ${RUN_CONCURRENCY} solutions at once) ` +
      `executed by one worker process (\`apps/worker\`, the production entry point) to the end, against ${REPLICAS} simulated replicas in their own process (${SEQUENCES_PER_REPLICA.toLocaleString("en")} sequences each at time scale ${TIME_SCALE}: faster than the worker, see the ceiling rows of orchestration.md). ` +
      `Before the run, \`planAnnotateRun\` (what \`stepwiser plan annotate\` prints) computes its solutions, chunks, requests and rollouts; afterwards every count the run stored is compared with it exactly (a count off fails the benchmark). ` +
      `The worker's peak resident memory is VmHWM from /proc/<pid>/status, read every ${POLL_MS / 1000} s and at the end; CPU from /proc for the worker and for PostgreSQL (postmaster and backends).\n\n` +
      `**What holds memory.** The plan streams segmentation ids page by page (500) into RunUnit rows; executors claim 25 units at a time; a unit holds one solution (its chunks, its stored rollout outcomes, the rows of one request at a time); progress is two counts and one UPDATE per second, a sample at most once per second; the summary is COUNT and SUM aggregates in PostgreSQL. None of them reads the run's solutions, chunk values or rollouts into the worker, so its memory does not grow with the dataset.`,
    limits:
      `The simulated policy's continuations are short arithmetic texts (a few dozen tokens, not the 500–1,500 of a real reasoning model), so the rows are smaller than a real run's and PostgreSQL writes less text; the counts, the units, requests and rows per request are those of a real run. ` +
      `The cluster answers from the simulated world's truth without a model, but serving its HTTP requests and sampling its answers still takes CPU, about as much as the worker's (in an earlier partial run of this benchmark, 16 CPU-minutes against the worker's 13). Its peak memory is reported too: it keeps nothing per finished request, and its prefix caches are bounded (2M tokens per replica), so it should not grow with the run either. ` +
      `Measured on one machine of ${availableParallelism()} cores shared by the worker, PostgreSQL and the simulated cluster, so the wall time and rollouts/s are those of the three together on ${availableParallelism()} cores, not the worker's ceiling (orchestration.md measures that, with the cluster's share reported); a real cluster runs elsewhere and would be the limit long before the worker.`,
    rows,
  });
} finally {
  await stopProcess(worker);
  await queue.stop({ graceful: false, wait: true }).catch(() => {});
  await cluster.stop();
  await db.$disconnect();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
