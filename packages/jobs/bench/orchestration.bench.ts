import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { atProfile, writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { processCpuSeconds, processTreeCpuSeconds, repoRoot, startSimClusterProcess, stopProcess, type ClusterProcess } from "@stepwiser/config/bench/processes";
import { createDb } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { sumServerMetric } from "@stepwiser/inference";
import { connectJobQueue, createSimWorldDataset, isTerminal, liveWorkerCount, requestRunCancel, submitRun, type JobQueue } from "../src";

/**
 * End-to-end orchestration throughput: annotate runs executed by 1, 2 and 4
 * worker processes (the real worker entry point, sharing one PostgreSQL through
 * the job queue and the shared endpoint limiter) against a simulated cluster in
 * a process of its own. Generated tokens come from the replicas' counters, CPU
 * from /proc for each worker process.
 */
const REPLICAS = 4;
const SEQUENCES_PER_REPLICA = 256;
const DECODE_TOKENS_PER_SECOND = 10;
const TIME_SCALE = 2;
const CAPACITY = REPLICAS * SEQUENCES_PER_REPLICA * DECODE_TOKENS_PER_SECOND * TIME_SCALE;
const M = 16;
/** Requests (of n = M sequences each) per replica, for all workers together: 1.5 × the replica's sequence slots. */
const MAX_CONCURRENCY = Math.round((SEQUENCES_PER_REPLICA / M) * 1.5);
const WARM_UP_MS = atProfile({ full: 8_000, quick: 3_000 });
const WINDOW_MS = atProfile({ full: 20_000, quick: 6_000 });
/** The capacity runs' dataset: the cluster is the limit, so no run gets near its end within the window. */
const PROBLEMS = atProfile({ full: 500, quick: 200 });
const WORKER_COUNTS = [1, 2, 4];
const workerEnv = { STEPWISER_WORKER_HEARTBEAT_SECONDS: "1", STEPWISER_CAPACITY_REBALANCE_MS: "250", STEPWISER_QUEUE_POLL_SECONDS: "0.5" };

const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-orchestration-bench-"));
chmodSync(scratch, 0o755);
const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
const url = server.url("postgres");
await applyMigrations(url);
const db = createDb(url);
let cluster: ClusterProcess | undefined = await startSimClusterProcess({
  replicas: REPLICAS,
  timeScale: TIME_SCALE,
  capacity: { maxConcurrentSequences: SEQUENCES_PER_REPLICA, decodeTokensPerSecondPerSequence: DECODE_TOKENS_PER_SECOND },
});
const queue = await connectJobQueue(url);
const rows: BenchmarkRow[] = [];
const summary: string[] = [];

/** Starts `workers` worker processes and waits until they have registered. */
async function startWorkers(workers: number, tag: string): Promise<ChildProcess[]> {
  const children: ChildProcess[] = Array.from({ length: workers }, (_, i) =>
    spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
      cwd: repoRoot,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, ...workerEnv, DATABASE_URL: url, STEPWISER_WORKER_ID: `bench-${tag}-${workers}-${i}` },
    }),
  );
  for (const deadline = Date.now() + 60_000; (await liveWorkerCount(db, 1)) < workers; ) {
    if (Date.now() > deadline) throw new Error(`${workers} workers did not register`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return children;
}

/** Cancels the run, waits for it to end and stops the workers; returns the done units per worker. */
async function stopRun(runId: string, children: ChildProcess[]): Promise<Map<string, number>> {
  await requestRunCancel(db, runId);
  for (let finished = false, deadline = Date.now() + 60_000; !finished && Date.now() < deadline; ) {
    finished = isTerminal((await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status);
    if (!finished) await new Promise((r) => setTimeout(r, 250));
  }
  await Promise.all(children.map((c) => stopProcess(c)));
  const done = await db.runUnit.findMany({ where: { runId, status: "done" }, select: { claimedBy: true } });
  const unitsByWorker = new Map<string, number>();
  for (const u of done) {
    const worker = u.claimedBy?.split("/")[0] ?? "?";
    unitsByWorker.set(worker, (unitsByWorker.get(worker) ?? 0) + 1);
  }
  return unitsByWorker;
}

/**
 * The ceiling: a simulated cluster far faster than any worker (many more
 * sequence slots, a high time scale, a generous endpoint limit), so the
 * orchestrator (worker processes and PostgreSQL) is what limits, not the
 * cluster. Measures, for 1 and 4 worker processes, what is stored per second
 * and the CPU each process spends, and samples what database sessions wait on.
 */
const CEILING_REPLICAS = 4;
const CEILING_SEQUENCES_PER_REPLICA = 4096;
const CEILING_DECODE_TOKENS_PER_SECOND = 40;
const CEILING_TIME_SCALE = 100;
const CEILING_CAPACITY = CEILING_REPLICAS * CEILING_SEQUENCES_PER_REPLICA * CEILING_DECODE_TOKENS_PER_SECOND * CEILING_TIME_SCALE;
/** Requests of n = M per replica for all workers together: every slot of the replica. */
const CEILING_MAX_CONCURRENCY = CEILING_SEQUENCES_PER_REPLICA / M;
/** Solutions at once per executor. */
const CEILING_RUN_CONCURRENCY = 256;
/**
 * Enough solutions that neither ceiling run ends before its window does (the bench fails if one does), and more
 * than four executors hold at once (4 × CEILING_RUN_CONCURRENCY), so every worker keeps claiming units.
 */
const CEILING_PROBLEMS = atProfile({ full: 3_000, quick: 2_000 });
/**
 * The same warm-up in both profiles: a freshly started worker stores its first rollouts only after 10–20 s on a
 * busy machine (loading its modules and grading threads, claiming and starting its first units), and a window
 * opened before that measures nothing.
 */
const CEILING_WARM_UP_MS = 15_000;
const CEILING_WINDOW_MS = atProfile({ full: 20_000, quick: 8_000 });
const CEILING_WORKER_COUNTS = [1, 4];
/** Targets: one worker stores this many rollouts per second at ≤ 1 core; four store ≥ 3× one's. */
const ROLLOUTS_PER_SECOND_TARGET = 2_000;
const SCALE_TARGET = 3;
/** The simulated cluster answers /metrics from the event loop that also answers bursts of requests: wait for it. */
const SCRAPE_TIMEOUT_MS = 60_000;

interface CeilingMeasurement {
  workers: number;
  seconds: number;
  tokens: number;
  requests: number;
  rollouts: number;
  workerCores: number[];
  dbCores: number;
  clusterCores: number;
  runningSequences: number[];
  waits: Map<string, number>;
  waitSamples: number;
  lockWaits: number;
  /** The machine's 1-minute load average when the window began and ended: above its cores, other work shared them. */
  load: [number, number];
}

async function measureCeilingRun(clusterProcess: ClusterProcess, datasetId: string, workers: number, seed: number, jobQueue: JobQueue): Promise<CeilingMeasurement> {
  const children = await startWorkers(workers, "ceiling");
  try {
    return await measureWhileRunning(clusterProcess, datasetId, children, seed, jobQueue);
  } catch (error) {
    await Promise.all(children.map((c) => stopProcess(c)));
    throw error;
  }
}

async function measureWhileRunning(clusterProcess: ClusterProcess, datasetId: string, children: ChildProcess[], seed: number, jobQueue: JobQueue): Promise<CeilingMeasurement> {
  const workers = children.length;
  const run = await submitRun(db, jobQueue, {
    kind: "annotate",
    config: { datasetId, policyEndpoint: "fast-policy", rollouts: M, strategy: "fixed", seed, concurrency: CEILING_RUN_CONCURRENCY },
  });
  await new Promise((r) => setTimeout(r, CEILING_WARM_UP_MS));
  const counters = async () => {
    const [rollouts, state] = await Promise.all([db.rollout.count({ where: { runId: run.id } }), db.run.findUniqueOrThrow({ where: { id: run.id }, select: { requests: true, status: true } })]);
    return { rollouts, requests: state.requests, status: state.status };
  };
  const before = await counters();
  if (before.status !== "running") throw new Error(`ceiling run ended during warm-up (${before.status}): the dataset is too small for the window`);
  const tokensBefore = await sumServerMetric(clusterProcess.urls, "vllm:generation_tokens_total", SCRAPE_TIMEOUT_MS);
  const cpuBefore = children.map((c) => processCpuSeconds(c.pid!));
  const dbBefore = processTreeCpuSeconds(server.pid);
  const clusterBefore = processCpuSeconds(clusterProcess.pid);
  const loadBefore = loadavg()[0]!;
  const started = performance.now();
  const runningSequences: number[] = [];
  const waits = new Map<string, number>();
  let waitSamples = 0;
  let lockWaits = 0;
  while (performance.now() - started < CEILING_WINDOW_MS) {
    await new Promise((r) => setTimeout(r, 1_000));
    runningSequences.push(await sumServerMetric(clusterProcess.urls, "vllm:num_requests_running", SCRAPE_TIMEOUT_MS));
    // What the worker's sessions are doing at this instant: running (CPU), or waiting on what.
    const activity = await db.$queryRaw<{ what: string; sessions: number }[]>`
      SELECT CASE WHEN wait_event IS NULL THEN 'on CPU' ELSE wait_event_type || ':' || wait_event END AS what, count(*)::int AS sessions
        FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')
       GROUP BY 1`;
    for (const { what, sessions } of activity) waits.set(what, (waits.get(what) ?? 0) + sessions);
    const [locks] = await db.$queryRaw<{ waiting: number }[]>`SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted`;
    lockWaits += locks?.waiting ?? 0;
    waitSamples += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await counters();
  const tokens = (await sumServerMetric(clusterProcess.urls, "vllm:generation_tokens_total", SCRAPE_TIMEOUT_MS)) - tokensBefore;
  const workerCores = children.map((c, i) => (processCpuSeconds(c.pid!) - cpuBefore[i]!) / seconds);
  const dbCores = (processTreeCpuSeconds(server.pid) - dbBefore) / seconds;
  const clusterCores = (processCpuSeconds(clusterProcess.pid) - clusterBefore) / seconds;
  if (after.status !== "running") throw new Error(`ceiling run ended during the window (${after.status}): the dataset is too small for the window`);
  await stopRun(run.id, children);
  return {
    workers,
    seconds,
    tokens,
    requests: after.requests - before.requests,
    rollouts: after.rollouts - before.rollouts,
    workerCores,
    dbCores,
    clusterCores,
    runningSequences,
    waits,
    waitSamples,
    lockWaits,
    load: [loadBefore, loadavg()[0]!],
  };
}

async function measureCeiling(jobQueue: JobQueue): Promise<{ rows: BenchmarkRow[]; summary: string[]; method: string; limits: string }> {
  const fast = await startSimClusterProcess({
    replicas: CEILING_REPLICAS,
    timeScale: CEILING_TIME_SCALE,
    capacity: { maxConcurrentSequences: CEILING_SEQUENCES_PER_REPLICA, decodeTokensPerSecondPerSequence: CEILING_DECODE_TOKENS_PER_SECOND, kvCacheTokens: 64 * 1_048_576 },
  });
  const out: BenchmarkRow[] = [];
  const measured: CeilingMeasurement[] = [];
  try {
    await db.endpoint.create({ data: { name: "fast-policy", model: "sim-policy", role: "policy", baseUrls: fast.urls, maxConcurrency: CEILING_MAX_CONCURRENCY } });
    const { datasetId, solutions } = await createSimWorldDataset(db, { name: "orchestration ceiling", problems: CEILING_PROBLEMS, seed: 100_000 });
    console.error(`ceiling dataset: ${solutions} solutions`);
    for (const [index, workers] of CEILING_WORKER_COUNTS.entries()) {
      const m = await measureCeilingRun(fast, datasetId, workers, 100 + index, jobQueue);
      measured.push(m);
      console.error(
        `ceiling ${workers}w: ${(m.rollouts / m.seconds).toFixed(0)} rollouts/s, workers ${m.workerCores.map((c) => c.toFixed(2)).join(" ")} cores, db ${m.dbCores.toFixed(2)}, cluster ${m.clusterCores.toFixed(2)}`,
      );
    }
  } finally {
    await fast.stop();
  }

  const slots = CEILING_REPLICAS * CEILING_SEQUENCES_PER_REPLICA;
  for (const m of measured) {
    const label = `ceiling, ${m.workers} worker${m.workers > 1 ? "s" : ""}`;
    const rolloutsPerSecond = m.rollouts / m.seconds;
    const workerTotal = m.workerCores.reduce((a, b) => a + b, 0);
    const maxRunning = Math.max(...m.runningSequences);
    const waitsText = [...m.waits.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([what, n]) => `${what} ${(n / m.waitSamples).toFixed(1)}`)
      .join(" · ");
    out.push(
      { metric: `${label}: rollouts stored/s (Rollout rows over the window)`, value: `${rolloutsPerSecond.toFixed(0)}`, ...(m.workers === 1 ? { target: `≥ ${ROLLOUTS_PER_SECOND_TARGET.toLocaleString("en")}`, met: rolloutsPerSecond >= ROLLOUTS_PER_SECOND_TARGET } : {}) },
      { metric: `${label}: generated tokens/s (mean tokens per rollout)`, value: `${(m.tokens / m.seconds).toFixed(0)} (${(m.tokens / Math.max(1, m.rollouts)).toFixed(0)})` },
      {
        metric: `${label}: requests/s (n = ${M} each) and the rollouts they sampled/s`,
        value: `${(m.requests / m.seconds).toFixed(0)} (${((m.requests * M) / m.seconds).toFixed(0)}${m.requests * M > m.rollouts * 1.1 ? "; more than stored: answered, not yet graded and written" : ""})`,
      },
      {
        metric: `${label}: CPU per worker process`,
        value: `${m.workerCores.map((c) => c.toFixed(2)).join(" · ")} cores (${((workerTotal * 1000) / rolloutsPerSecond).toFixed(3)} ms per rollout)`,
        ...(m.workers === 1 ? { target: "≤ 1 core", met: Math.max(...m.workerCores) <= 1 } : {}),
      },
      { metric: `${label}: PostgreSQL CPU (postmaster and backends)`, value: `${m.dbCores.toFixed(2)} cores (${((m.dbCores * 1000) / rolloutsPerSecond).toFixed(3)} ms per rollout)` },
      { metric: `${label}: simulated cluster CPU (its one process)`, value: `${m.clusterCores.toFixed(2)} cores` },
      {
        metric: `${label}: cluster sequences running (highest sample) ÷ its slots`,
        value: `${maxRunning} / ${slots} = ${((maxRunning / slots) * 100).toFixed(1)} %`,
        target: "well below 100 % (the cluster is not the limit)",
        met: maxRunning < slots * 0.5,
      },
      { metric: `${label}: database sessions per sample, by what they wait on (top 5)`, value: waitsText || "none active" },
      { metric: `${label}: lock requests waiting (mean per sample, pg_locks not granted)`, value: (m.lockWaits / m.waitSamples).toFixed(2) },
      { metric: `${label}: machine load average (1 min) at the window's start · end`, value: `${m.load[0].toFixed(2)} · ${m.load[1].toFixed(2)} on ${availableParallelism()} cores` },
    );
  }
  const one = measured.find((m) => m.workers === 1)!;
  const four = measured.find((m) => m.workers === 4)!;
  const r1 = one.rollouts / one.seconds;
  const r4 = four.rollouts / four.seconds;
  // Orchestrator CPU (workers + PostgreSQL) per stored rollout, the lower of the two measurements (one worker's: least
  // contended; four workers' includes answers sampled but not yet stored). The cluster would run elsewhere.
  const msPerRollout = (m: CeilingMeasurement) => ((m.workerCores.reduce((a, b) => a + b, 0) + m.dbCores) * 1000) / (m.rollouts / m.seconds);
  const orchestratorMsPerRollout = Math.min(msPerRollout(one), msPerRollout(four));
  const coresForTarget = (SCALE_TARGET * r1 * orchestratorMsPerRollout) / 1000;
  const machineCores = availableParallelism();
  const busyCores = four.workerCores.reduce((a, b) => a + b, 0) + four.dbCores + four.clusterCores;
  out.push({
    metric: `ceiling: 4 workers' rollouts/s ÷ 1 worker's`,
    value: `${(r4 / r1).toFixed(2)} × (${SCALE_TARGET} × needs ${coresForTarget.toFixed(1)} cores of workers + PostgreSQL at ${orchestratorMsPerRollout.toFixed(3)} ms per rollout; this machine has ${machineCores}, all busy: ${busyCores.toFixed(2)} cores used)`,
    target: `≥ ${SCALE_TARGET} ×, or the cores it needs exceed the machine's`,
    met: r4 / r1 >= SCALE_TARGET || coresForTarget > machineCores,
  });
  const method =
    `**Ceiling rows.** A second simulated cluster, faster than any worker: ${CEILING_REPLICAS} replicas of ${CEILING_SEQUENCES_PER_REPLICA.toLocaleString("en")} concurrent sequences × ${CEILING_DECODE_TOKENS_PER_SECOND} tokens/s at time scale ${CEILING_TIME_SCALE} ` +
    `(capacity ${CEILING_CAPACITY.toLocaleString("en")} generated tokens/s, ${slots.toLocaleString("en")} sequence slots), in its own process; the endpoint allows ${CEILING_MAX_CONCURRENCY} requests of n = ${M} per replica (all its slots), and each executor annotates ${CEILING_RUN_CONCURRENCY} solutions at once. ` +
    `A dataset of ${CEILING_PROBLEMS.toLocaleString("en")} simulated-world solutions is annotated (strategy fixed, M = ${M}) by 1, then 4 worker processes. After ${CEILING_WARM_UP_MS / 1000} s of warm-up, over a ${CEILING_WINDOW_MS / 1000} s window: Rollout rows counted in the database at both ends, requests from the run's counters, generated tokens from the replicas' counters, ` +
    `CPU from /proc for each worker, for PostgreSQL (the postmaster's own, reaped and live children's time: every backend) and for the cluster's process; every second the cluster's running sequences, the run's database sessions by wait event (\`pg_stat_activity\`, active or idle in transaction; "on CPU" = no wait event) and the lock requests not granted (\`pg_locks\`). ` +
    `The last row projects the 3 × target: the CPU workers and PostgreSQL spend per stored rollout (the lower of the one- and four-worker measurements) times 3 × one worker's rate.`;
  const limits =
    `Everything runs on one machine of ${machineCores} cores: workers, PostgreSQL and the simulated cluster share them, so once one worker keeps them busy more workers cannot store more; the scale-up row says how many cores the 3 × target would need rather than showing it. ` +
    `A load average above the core count means runnable work queued for the CPU: this benchmark's own processes and threads (workers, their grading threads, backends, the cluster) and anything else running on the machine at the time. ` +
    `With four workers the database sessions also wait on advisory locks: every worker renews and rebalances its endpoint slots every STEPWISER_CAPACITY_REBALANCE_MS (250 ms here) in one transaction that holds the per-replica locks for about a dozen round trips (\`packages/jobs/src/inference/shared-capacity.ts\`); when the workers' event loops are slow to answer (four busy workers on two cores), the others queue behind the holder. It did not starve the cluster here (it ran far below its slots), but it is the first lock contention to watch with more workers; fewer round trips per rebalance or a longer interval would shorten it. ` +
    `The simulated cluster knows the truth and answers from it: its per-request cost (parse the prompt, continue the arithmetic world, render JSON) is not vLLM's, and its completions are short arithmetic continuations (the mean tokens per rollout row), not the 500–1,500-token reasoning of a real policy. ` +
    `The worker's cost per rollout is mostly per sample (grading the answer, building and writing the row, JSON of the response), so it is about the same for longer rollouts apart from parsing and storing more text; a real cluster's HTTP/JSON handling and network add latency the worker hides with concurrency, not CPU on the worker. ` +
    `At 1,000 tokens per rollout, R rollouts/s is R × 1,000 generated tokens/s; a GPU serving a 7B-class policy with a few hundred sequences batched decodes on the order of 2,000–5,000 tokens/s (an assumption, not measured here), so 2,000 rollouts/s is the output of roughly 400–1,000 such GPUs.`;
  const summary = [`ceiling 1w ${r1.toFixed(0)} rollouts/s, 4w ${r4.toFixed(0)} rollouts/s`];
  return { rows: out, summary, method, limits };
}

try {
  await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: cluster.urls, maxConcurrency: MAX_CONCURRENCY } });
  const { datasetId, solutions } = await createSimWorldDataset(db, { name: "orchestration", problems: PROBLEMS, seed: 3 });
  console.error(`dataset: ${solutions} solutions`);

  for (const [index, workers] of WORKER_COUNTS.entries()) {
    const children = await startWorkers(workers, "capacity");
    const run = await submitRun(db, queue, {
      kind: "annotate",
      config: { datasetId, policyEndpoint: "policy", rollouts: M, strategy: "fixed", seed: index, concurrency: 64 },
    });
    await new Promise((r) => setTimeout(r, WARM_UP_MS));

    const tokensBefore = await sumServerMetric(cluster.urls, "vllm:generation_tokens_total");
    const cpuBefore = children.map((c) => processCpuSeconds(c.pid!));
    const started = performance.now();
    const running: number[] = [];
    while (performance.now() - started < WINDOW_MS) {
      await new Promise((r) => setTimeout(r, 2_000));
      running.push(await sumServerMetric(cluster.urls, "vllm:num_requests_running"));
    }
    const seconds = (performance.now() - started) / 1000;
    const tokens = (await sumServerMetric(cluster.urls, "vllm:generation_tokens_total")) - tokensBefore;
    const cores = children.map((c, i) => (processCpuSeconds(c.pid!) - cpuBefore[i]!) / seconds);

    const unitsByWorker = await stopRun(run.id, children);
    const executorsInWorkers = unitsByWorker.size;

    const share = tokens / seconds / CAPACITY;
    const minRunning = Math.min(...running);
    const maxCores = Math.max(...cores);
    const label = `${workers} worker${workers > 1 ? "s" : ""}`;
    rows.push(
      { metric: `${label}: generated tokens/s ÷ capacity`, value: `${(tokens / seconds).toFixed(0)} / ${CAPACITY} = ${(share * 100).toFixed(1)} %`, target: "≥ 95 %", met: share >= 0.95 },
      { metric: `${label}: sequences running (lowest sample)`, value: String(minRunning), target: "≥ 512", met: minRunning >= 512 },
      { metric: `${label}: CPU per worker process`, value: cores.map((c) => `${c.toFixed(2)}`).join(" · ") + " cores", target: "≤ 1 core each", met: maxCores <= 1 },
      {
        metric: `${label}: workers that finished units (units each)`,
        value: `${executorsInWorkers} of ${workers} (${[...unitsByWorker.values()].join(" · ")})`,
        target: `${workers}`,
        met: executorsInWorkers === workers,
      },
    );
    summary.push(`${workers}w ${(share * 100).toFixed(1)} % at ≤ ${maxCores.toFixed(2)} cores`);
    console.error(`${label}: ${(share * 100).toFixed(1)} % of capacity, ${minRunning} running, CPU ${cores.map((c) => c.toFixed(2)).join(", ")}`);
  }

  const peak = await sumServerMetric(cluster.urls, "stepwiser_sim:peak_open_requests");
  const peakPerReplica = await Promise.all(cluster.urls.map((u) => sumServerMetric([u], "stepwiser_sim:peak_open_requests")));
  const worstPeak = Math.max(...peakPerReplica);
  rows.push({
    metric: "most requests ever open on one replica (all runs)",
    value: `${worstPeak} (sum over replicas ${peak})`,
    target: `≤ ${MAX_CONCURRENCY} (the endpoint's limit)`,
    met: worstPeak <= MAX_CONCURRENCY,
  });
  await cluster.stop();
  cluster = undefined;

  const ceiling = await measureCeiling(queue);
  rows.push(...ceiling.rows);
  summary.push(...ceiling.summary);

  // A helper joins a run some seconds after it starts and a unit (one solution, every prefix at the cluster's pace)
  // takes several seconds more, so a run of a few seconds can end before a helper has finished any.
  const runSeconds = (WARM_UP_MS + WINDOW_MS) / 1000;
  const unitsNote =
    runSeconds < 20
      ? ` Runs this short (${runSeconds} s from submission to cancellation) can end before a worker that joined late has finished a unit, so the rows of workers that finished units may miss without a fault.`
      : "";
  writeBenchmarkReport({
    name: "orchestration",
    title: "Orchestration: annotate runs on 1, 2 and 4 worker processes, and the orchestrator's own ceiling",
    method:
      `**Capacity rows.** ${REPLICAS} simulated replicas in a separate process, each ${SEQUENCES_PER_REPLICA} concurrent sequences × ${DECODE_TOKENS_PER_SECOND} tokens/s at time scale ${TIME_SCALE}: capacity ${CAPACITY.toLocaleString("en")} generated tokens/s. ` +
      `For each worker count, that many worker processes (\`apps/worker\`, the production entry point) share one embedded PostgreSQL; an annotate run (strategy fixed, M = ${M}, one request of n = ${M} per prefix, 64 solutions at once per executor) is submitted to the job queue, its primary executor asks the other live workers to help, and every executor claims units from the database. ` +
      `The endpoint allows ${MAX_CONCURRENCY} requests per replica (${MAX_CONCURRENCY * M} sequences, 1.5 × the replica's slots) for all workers together, held by the shared limiter. After ${WARM_UP_MS / 1000} s of warm-up, generated tokens are read from the replicas' \`vllm:generation_tokens_total\` over a ${WINDOW_MS / 1000} s window, running sequences from \`vllm:num_requests_running\` every 2 s, and each worker's CPU time from /proc; then the run is cancelled and the workers stopped.${unitsNote}\n\n` +
      ceiling.method,
    limits: ceiling.limits,
    rows,
  });
  console.log(`orchestration: ${summary.join(", ")}${process.exitCode ? " — target missed" : " — all targets met"}`);
} finally {
  await queue.stop({ graceful: false, wait: true }).catch(() => {});
  await cluster?.stop();
  await db.$disconnect();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
