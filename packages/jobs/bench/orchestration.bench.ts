import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { processCpuSeconds, repoRoot, startSimClusterProcess, stopProcess } from "@stepwiser/config/bench/processes";
import { createDb } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { sumServerMetric } from "@stepwiser/inference";
import { connectJobQueue, createSimWorldDataset, isTerminal, liveWorkerCount, requestRunCancel, submitRun } from "../src";

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
const WARM_UP_MS = 8_000;
const WINDOW_MS = 20_000;
const WORKER_COUNTS = [1, 2, 4];
const workerEnv = { STEPWISER_WORKER_HEARTBEAT_SECONDS: "1", STEPWISER_CAPACITY_REBALANCE_MS: "250", STEPWISER_QUEUE_POLL_SECONDS: "0.5" };

const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-orchestration-bench-"));
chmodSync(scratch, 0o755);
const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
const url = server.url("postgres");
await applyMigrations(url);
const db = createDb(url);
const cluster = await startSimClusterProcess({
  replicas: REPLICAS,
  timeScale: TIME_SCALE,
  capacity: { maxConcurrentSequences: SEQUENCES_PER_REPLICA, decodeTokensPerSecondPerSequence: DECODE_TOKENS_PER_SECOND },
});
const queue = await connectJobQueue(url);
const rows: BenchmarkRow[] = [];
const summary: string[] = [];

try {
  await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: cluster.urls, maxConcurrency: MAX_CONCURRENCY } });
  const { datasetId, trajectories } = await createSimWorldDataset(db, { name: "orchestration", problems: 500, seed: 3 });
  console.error(`dataset: ${trajectories} solutions`);

  for (const [index, workers] of WORKER_COUNTS.entries()) {
    const children: ChildProcess[] = Array.from({ length: workers }, (_, i) =>
      spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
        cwd: repoRoot,
        stdio: ["ignore", "ignore", "inherit"],
        env: { ...process.env, ...workerEnv, DATABASE_URL: url, STEPWISER_WORKER_ID: `bench-${workers}-${i}` },
      }),
    );
    for (const deadline = Date.now() + 60_000; (await liveWorkerCount(db, 1)) < workers; ) {
      if (Date.now() > deadline) throw new Error(`${workers} workers did not register`);
      await new Promise((r) => setTimeout(r, 200));
    }
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

    await requestRunCancel(db, run.id);
    for (let finished = false, deadline = Date.now() + 60_000; !finished && Date.now() < deadline; ) {
      finished = isTerminal((await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } })).status);
      if (!finished) await new Promise((r) => setTimeout(r, 250));
    }
    await Promise.all(children.map((c) => stopProcess(c)));
    const done = await db.runUnit.findMany({ where: { runId: run.id, status: "done" }, select: { claimedBy: true } });
    const unitsByWorker = new Map<string, number>();
    for (const u of done) {
      const worker = u.claimedBy?.split("/")[0] ?? "?";
      unitsByWorker.set(worker, (unitsByWorker.get(worker) ?? 0) + 1);
    }
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
  writeBenchmarkReport({
    name: "orchestration",
    title: "Orchestration: annotate runs on 1, 2 and 4 worker processes",
    method:
      `${REPLICAS} simulated replicas in a separate process, each ${SEQUENCES_PER_REPLICA} concurrent sequences × ${DECODE_TOKENS_PER_SECOND} tokens/s at time scale ${TIME_SCALE}: capacity ${CAPACITY.toLocaleString("en")} generated tokens/s. ` +
      `For each worker count, that many worker processes (\`apps/worker\`, the production entry point) share one embedded PostgreSQL; an annotate run (strategy fixed, M = ${M}, one request of n = ${M} per prefix, 64 solutions at once per executor) is submitted to the job queue, its primary executor asks the other live workers to help, and every executor claims units from the database. ` +
      `The endpoint allows ${MAX_CONCURRENCY} requests per replica (${MAX_CONCURRENCY * M} sequences, 1.5 × the replica's slots) for all workers together, held by the shared limiter. After ${WARM_UP_MS / 1000} s of warm-up, generated tokens are read from the replicas' \`vllm:generation_tokens_total\` over a ${WINDOW_MS / 1000} s window, running sequences from \`vllm:num_requests_running\` every 2 s, and each worker's CPU time from /proc; then the run is cancelled and the workers stopped.`,
    rows,
  });
  console.log(`orchestration: ${summary.join(", ")}${process.exitCode ? " — target missed" : " — all targets met"}`);
} finally {
  await queue.stop({ graceful: false, wait: true }).catch(() => {});
  await cluster.stop();
  await db.$disconnect();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
