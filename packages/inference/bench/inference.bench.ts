import { buildSelfSegmentingPolicyPrompt } from "@stepwiser/core";
import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";
import { startSimClusterProcess } from "@stepwiser/config/bench/processes";
import { EndpointPool, InferenceClient, sumServerMetric } from "../src/client";
import { generateProblem } from "../src/sim";

/**
 * Throughput of the client against the simulated cluster's known capacity.
 * The cluster runs in its own process (as a GPU server would), so the CPU
 * measured here is the orchestrating process's alone.
 */
const REPLICAS = 4;
const SEQUENCES_PER_REPLICA = 256;
const DECODE_TOKENS_PER_SECOND = 10;
const TIME_SCALE = 2;
// The requests outnumber the sequence slots from the start, so the slots fill at once and a short warm-up and
// window still see the steady state (the quick window takes 4 samples of the running sequences).
const WARM_UP_MS = atProfile({ full: 8_000, quick: 3_000 });
const WINDOW_MS = atProfile({ full: 25_000, quick: 8_000 });
const capacityTokensPerSecond = REPLICAS * SEQUENCES_PER_REPLICA * DECODE_TOKENS_PER_SECOND * TIME_SCALE;

const cluster = await startSimClusterProcess({
  replicas: REPLICAS,
  timeScale: TIME_SCALE,
  capacity: { maxConcurrentSequences: SEQUENCES_PER_REPLICA, decodeTokensPerSecondPerSequence: DECODE_TOKENS_PER_SECOND },
});
// More requests than sequence slots, so every replica always has a queue to refill from.
const inFlightPerReplica = Math.round(SEQUENCES_PER_REPLICA * 1.25);
const pool = new EndpointPool(cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: inFlightPerReplica })));
const client = new InferenceClient(pool);
const prompts = Array.from({ length: 500 }, (_, i) => [{ role: "user" as const, content: buildSelfSegmentingPolicyPrompt({ problem: generateProblem(i).text }).text }]);

let stop = false;
let seed = 0;
async function worker(): Promise<void> {
  while (!stop) {
    const s = seed++;
    await client.generate({ model: "sim-policy", prompt: { kind: "chat", messages: prompts[s % prompts.length]! }, seed: s, temperature: 1 });
  }
}

try {
  const workers = Array.from({ length: REPLICAS * inFlightPerReplica }, () => worker());
  await new Promise((r) => setTimeout(r, WARM_UP_MS));
  const serverTokensBefore = await sumServerMetric(cluster.urls, "vllm:generation_tokens_total");
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const runningSamples: number[] = [];
  while (performance.now() - started < WINDOW_MS) {
    await new Promise((r) => setTimeout(r, 2_500));
    runningSamples.push(await sumServerMetric(cluster.urls, "vllm:num_requests_running"));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const serverTokens = (await sumServerMetric(cluster.urls, "vllm:generation_tokens_total")) - serverTokensBefore;
  stop = true;
  await Promise.all(workers);

  const achieved = serverTokens / seconds;
  const utilisation = achieved / capacityTokensPerSecond;
  const cores = (cpu.user + cpu.system) / 1e6 / seconds;
  const minRunning = Math.min(...runningSamples);
  const usage = client.meter.snapshot();
  writeBenchmarkReport({
    name: "inference",
    title: "Inference client throughput against the simulated cluster",
    method:
      `${REPLICAS} simulated replicas in a separate process, each ${SEQUENCES_PER_REPLICA} concurrent sequences × ${DECODE_TOKENS_PER_SECOND} tokens/s at time scale ${TIME_SCALE}: capacity ${capacityTokensPerSecond.toLocaleString("en")} generated tokens/s. ` +
      `The client keeps ${REPLICAS * inFlightPerReplica} sim-policy requests in flight through one endpoint pool (least outstanding + prefix affinity); after ${WARM_UP_MS / 1000} s of warm-up, generated tokens are read from the replicas' \`vllm:generation_tokens_total\` over a ${WINDOW_MS / 1000} s window, and this process's CPU time over the same window.`,
    rows: [
      { metric: "generated tokens/s", value: achieved.toFixed(0) },
      { metric: "share of cluster capacity", value: `${(utilisation * 100).toFixed(1)} %`, target: "≥ 95 %", met: utilisation >= 0.95 },
      { metric: "sequences running (lowest sample in the window)", value: String(minRunning), target: "≥ 512", met: minRunning >= 512 },
      { metric: "orchestrating process CPU", value: `${cores.toFixed(2)} cores`, target: "≤ 1 core", met: cores <= 1 },
      { metric: "requests completed (whole run)", value: String(usage.requests) },
      { metric: "latency p50 / p95", value: `${((usage.latencyMs.p50 ?? 0) / 1000).toFixed(2)} s / ${((usage.latencyMs.p95 ?? 0) / 1000).toFixed(2)} s` },
    ],
  });
} finally {
  await pool.close();
  await cluster.stop();
}
