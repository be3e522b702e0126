// Needs the "./sim" subpath of @stepwiser/inference (src/sim/index.ts) to re-export the
// server (src/sim/server) and the models' createDefaultSimModels (src/sim/models).
import {
  createDefaultSimModels,
  parseSimClusterConfig,
  startSimCluster,
  type SimClusterConfig,
  type SimModel,
  type SimReplica,
} from "@stepwiser/inference/sim";
import { readInputJson } from "../input/files";
import { numberFlag } from "../input/numbers";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

export interface SimClusterCommandOptions {
  /** Served instead of the default simulated models (tests). */
  models?: readonly SimModel[];
  /** Stops the cluster like SIGINT does (tests). */
  signal?: AbortSignal;
}

const STATUS_EVERY_MS = 10_000;

/**
 * `stepwiser sim-cluster [--replicas N] [--port P] [--config FILE] [--time-scale X] [--dialect vllm|sglang]`
 *
 * Runs simulated vLLM (or SGLang) replicas until SIGINT/SIGTERM. The one stdout line says
 * where they listen; flags override the config file's fields.
 */
export async function simClusterCommand(args: string[], options: SimClusterCommandOptions = {}): Promise<void> {
  const { values } = parseFlags("sim-cluster", {
    args,
    options: {
      replicas: { type: "string" },
      port: { type: "string" },
      config: { type: "string" },
      "time-scale": { type: "string" },
      dialect: { type: "string" },
    },
  });

  let fileConfig: Record<string, unknown> = {};
  if (values.config !== undefined) {
    const parsed = await readInputJson(values.config);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new UsageError(`--config ${values.config}: must be a JSON object`);
    }
    fileConfig = parsed as Record<string, unknown>;
  }
  const overrides: Record<string, unknown> = {};
  if (values.replicas !== undefined) overrides.replicas = numberFlag("replicas", values.replicas);
  if (values.port !== undefined) overrides.basePort = numberFlag("port", values.port);
  if (values["time-scale"] !== undefined) overrides.timeScale = numberFlag("time-scale", values["time-scale"]);
  if (values.dialect !== undefined) overrides.dialect = values.dialect;

  const config = clusterConfig({ ...fileConfig, ...overrides });

  const models = options.models ?? createDefaultSimModels();
  const cluster = await startSimCluster({ ...config, models });
  process.stdout.write(
    `${JSON.stringify({
      replicas: cluster.replicas.map((r) => ({ url: r.url, port: r.port })),
      models: models.map((m) => m.id),
    })}\n`,
  );
  const { capacity } = config;
  process.stderr.write(
    `sim-cluster: ${cluster.replicas.length} replica(s) on ${cluster.replicas.map((r) => r.port).join(", ")}; ` +
      `${capacity.maxConcurrentSequences} sequences × ${capacity.decodeTokensPerSecondPerSequence} tokens/s per replica, ` +
      `time scale ${config.timeScale}; Ctrl-C to stop\n`,
  );

  const status = startStatusLog(cluster.replicas);
  await new Promise<void>((resolve) => {
    const stop = (reason: string) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      options.signal?.removeEventListener("abort", onAbort);
      process.stderr.write(`sim-cluster: ${reason}, stopping\n`);
      resolve();
    };
    const onSignal = (signal: NodeJS.Signals) => stop(signal);
    const onAbort = () => stop("aborted");
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    if (options.signal?.aborted) stop("aborted");
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  clearInterval(status);
  await cluster.stop();
  process.stderr.write("sim-cluster: stopped\n");
}

function clusterConfig(input: Record<string, unknown>): SimClusterConfig {
  try {
    return parseSimClusterConfig(input);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** One stderr line per period with activity, so a long run shows its load without a metrics scraper. */
function startStatusLog(replicas: readonly SimReplica[]): NodeJS.Timeout {
  let lastRequests = 0;
  let lastTokens = 0;
  const timer = setInterval(() => {
    let requests = 0;
    let tokens = 0;
    let running = 0;
    let waiting = 0;
    for (const replica of replicas) {
      const snapshot = replica.metrics();
      requests += snapshot.requests;
      for (const m of Object.values(snapshot.models)) {
        tokens += m.generationTokens;
        running += m.running;
        waiting += m.waiting;
      }
    }
    if (requests === lastRequests && running === 0) return;
    process.stderr.write(
      `sim-cluster: ${requests - lastRequests} requests, ${Math.round(((tokens - lastTokens) * 1000) / STATUS_EVERY_MS)} tokens/s, ` +
        `${running} running, ${waiting} waiting\n`,
    );
    lastRequests = requests;
    lastTokens = tokens;
  }, STATUS_EVERY_MS);
  timer.unref();
  return timer;
}
