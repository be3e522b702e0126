import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { gradingSettingsFromEnv, numberSettings, type GradingSettings } from "../grading/grading-settings";

export { gradingSettingsFromEnv, type GradingSettings };

/** How a worker process takes part in a deployment of many; every field has an environment variable. */
export interface WorkerSettings extends GradingSettings {
  /** STEPWISER_WORKER_ID: this process's name in claims, leases and the worker table. */
  workerId: string;
  /** STEPWISER_WORKER_HEARTBEAT_SECONDS: how often the worker row is renewed. */
  heartbeatSeconds: number;
  /** STEPWISER_UNIT_LEASE_SECONDS: a claimed unit is taken over by another executor after its executor is silent this long. */
  unitLeaseSeconds: number;
  /** STEPWISER_CAPACITY_LEASE_SECONDS: a worker's endpoint slots are reclaimed after it is silent this long. */
  capacityLeaseSeconds: number;
  /** STEPWISER_CAPACITY_REBALANCE_MS: how often endpoint slots are renewed and rebalanced between workers. */
  capacityRebalanceMs: number;
  /** STEPWISER_MAX_EXECUTORS_PER_RUN: executors one run may have across workers (0: one per live worker). */
  maxExecutorsPerRun: number;
  /**
   * STEPWISER_RUN_JOIN_SECONDS: how often the worker looks for running runs with unclaimed units to
   * help; this is how other workers join a run, at its start or when added later. 0 turns it off.
   */
  runJoinSeconds: number;
  /** STEPWISER_RUN_JOBS_PER_WORKER: run jobs one worker takes at once (runs it executes side by side). */
  runJobsPerWorker: number;
  /** STEPWISER_UPLOAD_RETENTION_HOURS: uploads no run took as input are deleted after this long; 0 keeps them. */
  uploadRetentionHours: number;
  /**
   * STEPWISER_INFERENCE_RESPONSE_TIMEOUT_SECONDS: how long a request to an inference server may go
   * without the start of an answer before the attempt is given up and retried. A non-streaming
   * answer starts only once its whole generation is done, so this bounds the longest generation.
   */
  inferenceResponseTimeoutSeconds: number;
  /** STEPWISER_WORKER_METRICS_PORT: serve /health and /metrics on this port (unset: no HTTP listener). */
  metricsPort: number | undefined;
  /** STEPWISER_WORKER_METRICS_HOST: the address the metrics listener binds (default 127.0.0.1). */
  metricsHost: string;
}

export function workerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerSettings {
  const num = numberSettings(env);
  const settings: WorkerSettings = {
    workerId: env.STEPWISER_WORKER_ID?.trim() || `${hostname()}/${process.pid}/${randomBytes(2).toString("hex")}`,
    heartbeatSeconds: num("STEPWISER_WORKER_HEARTBEAT_SECONDS", 5),
    unitLeaseSeconds: num("STEPWISER_UNIT_LEASE_SECONDS", 60),
    capacityLeaseSeconds: num("STEPWISER_CAPACITY_LEASE_SECONDS", 15),
    capacityRebalanceMs: num("STEPWISER_CAPACITY_REBALANCE_MS", 500, { min: 50 }),
    maxExecutorsPerRun: num("STEPWISER_MAX_EXECUTORS_PER_RUN", 0, { min: 0, integer: true }),
    runJoinSeconds: num("STEPWISER_RUN_JOIN_SECONDS", 2, { min: 0 }),
    runJobsPerWorker: num("STEPWISER_RUN_JOBS_PER_WORKER", 4, { integer: true }),
    uploadRetentionHours: num("STEPWISER_UPLOAD_RETENTION_HOURS", 24, { min: 0 }),
    inferenceResponseTimeoutSeconds: num("STEPWISER_INFERENCE_RESPONSE_TIMEOUT_SECONDS", 1800),
    metricsPort: env.STEPWISER_WORKER_METRICS_PORT ? num("STEPWISER_WORKER_METRICS_PORT", 0, { min: 0, integer: true }) : undefined,
    metricsHost: env.STEPWISER_WORKER_METRICS_HOST?.trim() || "127.0.0.1",
    ...gradingSettingsFromEnv(env),
  };
  // A slot lease shorter than two rebalances would expire between renewals.
  if (settings.capacityLeaseSeconds * 1000 < settings.capacityRebalanceMs * 4) {
    throw new Error(`STEPWISER_CAPACITY_LEASE_SECONDS (${settings.capacityLeaseSeconds}) must be at least 4 × STEPWISER_CAPACITY_REBALANCE_MS (${settings.capacityRebalanceMs} ms)`);
  }
  return settings;
}
