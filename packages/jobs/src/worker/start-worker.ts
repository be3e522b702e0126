import { randomBytes } from "node:crypto";
import type { Db } from "@stepwiser/db";
import type { Job } from "pg-boss";
import { holdRunGrading } from "../grading/run-grading";
import { SharedCapacity } from "../inference/shared-capacity";
import { createLogger, lineLogger, textLog, type Logger } from "../log/logger";
import { QUEUES, queueSettingsFromEnv, startJobQueue, type JobQueue } from "../queue/queue";
import { executeRun } from "../runs/engine";
import { UNIT_RUN_KINDS, WHOLE_RUN_KINDS } from "../registry";
import { OTHER_RUNS } from "../other-runs";
import { recordStoredRunsSpend } from "../run-spend";
import { z } from "zod";

/** A whole run's job: the run to execute. */
const wholeRunJobSchema = z.object({ runId: z.string().min(1) });
import { runJobRole, runJobSchema } from "../submit-run";
import { deleteAbandonedUploads } from "../files/abandoned-uploads";
import { repeatEvery, type Repeating } from "./repeat-every";
import { startRunJoining } from "./run-joining";
import { ObservedEndpointClients, startWorkerMetricsServer, WorkerMetrics, type WorkerMetricsServer } from "./worker-metrics";
import { WorkerRegistration } from "./worker-registry";
import { workerSettingsFromEnv, type WorkerSettings } from "./worker-settings";

export interface WorkerOptions {
  databaseUrl: string;
  db: Db;
  /** Records per import statement batch (smaller = finer-grained progress). */
  importBatchSize?: number;
  /**
   * The worker's logger (bound here with `workerId`; each job's lines go to a child bound with its run and
   * job, see jobLogger). Default: JSON or pretty lines on standard output (STEPWISER_LOG_LEVEL, STEPWISER_LOG_FORMAT).
   */
  logger?: Logger;
  /** Instead of `logger`: every JSON line is handed to this (a caller that keeps or drops them). */
  log?: (line: string) => void;
  /** Defaults to the STEPWISER_* environment variables (see workerSettingsFromEnv). */
  settings?: Partial<WorkerSettings>;
}

export interface RunningWorker {
  queue: JobQueue;
  workerId: string;
  /** The worker's logger, bound with its id. */
  logger: Logger;
  /** Set when STEPWISER_WORKER_METRICS_PORT (or settings.metricsPort) asks for /health and /metrics. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * Serves every pipeline queue until stopped; in-flight jobs finish before stop
 * resolves. Any number of workers may share one database: each registers itself,
 * runs are split into units that executors in every worker claim, and endpoint
 * concurrency limits are held across workers by the shared capacity table.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const settings = { ...workerSettingsFromEnv(), ...options.settings };
  const logger = (options.logger ?? (options.log ? lineLogger("worker", options.log) : createLogger({ name: "worker" }))).child({ workerId: settings.workerId });
  const queueSettings = queueSettingsFromEnv();
  const { db } = options;
  const registration = new WorkerRegistration(db, settings.workerId, settings.heartbeatSeconds, logger);
  await registration.start();
  const capacity = new SharedCapacity(db, {
    holderId: settings.workerId,
    leaseSeconds: settings.capacityLeaseSeconds,
    rebalanceMs: settings.capacityRebalanceMs,
    log: textLog(logger.child({ component: "capacity" })),
  });
  // With /metrics, every inference request's duration is observed by endpoint and outcome.
  let metrics: WorkerMetrics | undefined;
  const endpoints = new ObservedEndpointClients({ sharedCapacity: capacity, timeouts: { headersMs: settings.inferenceResponseTimeoutSeconds * 1000 } }, (endpoint, observation) =>
    metrics?.observeRequest(endpoint, observation),
  );

  const queue = await startJobQueue(options.databaseUrl, queueSettings, logger.child({ component: "queue" }));
  if (settings.metricsPort !== undefined) {
    metrics = new WorkerMetrics({
      workerId: settings.workerId,
      activeRuns: () => registration.activeRuns,
      replicaStatus: () => endpoints.replicaStatus(),
      queueCounts: () => queue.getQueues(Object.values(QUEUES)),
    });
  }
  // Model outputs are graded on worker threads under a hard limit per answer (created at first use).
  const releaseGrading = holdRunGrading(settings);
  // Runs stored before their models and cost were recorded get them once, before the worker takes jobs.
  const recorded = await recordStoredRunsSpend(db);
  if (recorded > 0) logger.info({ runs: recorded }, `recorded the models and cost of ${recorded} earlier run(s)`);
  const pollingIntervalSeconds = queueSettings.pollingIntervalSeconds;
  for (const kind of WHOLE_RUN_KINDS) {
    await queue.work(QUEUES[kind.queue], { batchSize: 1, pollingIntervalSeconds }, async ([job]: Job<unknown>[]) => {
      if (!job) return;
      const { runId } = wholeRunJobSchema.parse(job.data);
      const jobLog = jobLogger(logger, { runId, jobId: job.id, queue: QUEUES[kind.queue], kind: kind.kind });
      jobLog.info(`${kind.kind} run started`);
      try {
        await kind.execute(db, runId, { batchSize: options.importBatchSize, queue, runs: OTHER_RUNS });
      } catch (error) {
        jobLog.error({ err: error }, `${kind.kind} run failed`);
        throw error;
      }
      metrics?.jobDone(QUEUES[kind.queue]);
      jobLog.info(`${kind.kind} run done`);
    });
  }

  /** Runs this process is executing: a job for one of them joins that execution instead of starting a second executor. */
  const executions = new Map<string, Promise<void>>();
  /** `jobId`: the run's job that starts the execution; none for a run found while looking for work. */
  const executionOf = (runId: string, helper: boolean, jobId: string | undefined): Promise<void> => {
    const current = executions.get(runId);
    if (current) {
      if (jobId) jobLogger(logger, { runId, jobId, queue: QUEUES.run }).debug("run already executing here: the job follows that execution");
      return current;
    }
    const executorId = `${settings.workerId}/${(jobId ?? randomBytes(4).toString("hex")).slice(0, 8)}`;
    const runLog = jobLogger(logger, { runId, jobId, queue: QUEUES.run, executorId });
    runLog.info({ role: helper ? "helper" : "primary" }, helper ? (jobId ? "joining the run" : "joining the run, found while looking for work") : "run started");
    registration.activeRuns += 1;
    const execution = executeRun(db, runId, UNIT_RUN_KINDS, {
      endpoints,
      log: textLog(runLog),
      role: helper ? "helper" : "primary",
      executorId,
      unitLeaseSeconds: settings.unitLeaseSeconds,
    }).finally(() => {
      registration.activeRuns -= 1;
      executions.delete(runId);
    });
    executions.set(runId, execution);
    execution.then(
      () => {
        metrics?.jobDone(QUEUES.run);
        runLog.info("run done");
      },
      (error: unknown) => runLog.error({ err: error }, "run stopped"),
    );
    return execution;
  };
  // pg-boss fails a job still active at its expiry and backs its retries off exponentially, up to the
  // retry limit (pg-boss 12 as 10; 12 also aborts the job's signal and holds the worker until the handler
  // returns): a run outliving a few expiries would, after a crash, wait hours or never be resumed. So a
  // run's job hands the run on to a fresh job before it expires and completes, while the execution goes on;
  // if this process dies, the job it holds expires and is retried, and the run resumes elsewhere.
  // A job's retryCount counts its claims after the first, as in pg-boss 10; pg-boss 12.38 returns it on
  // every job, so the run queue's workers no longer fetch the whole row (includeMetadata).
  const relayAfterMs = (queueSettings.expireInSeconds * 1000) / 2;
  const workRunJob = async ([job]: Job<unknown>[]) => {
    if (!job) return;
    const data = runJobSchema.parse(job.data);
    const { runId, helper } = data;
    const execution = executionOf(runId, runJobRole(data, job.retryCount) === "helper", job.id);
    let timer: NodeJS.Timeout | undefined;
    const relayDue = new Promise<"relay">((resolve) => (timer = setTimeout(() => resolve("relay"), relayAfterMs)));
    try {
      if ((await Promise.race([execution.then(() => "done" as const), relayDue])) === "relay") {
        await queue.send(QUEUES.run, { runId, helper, relay: true });
      }
    } finally {
      clearTimeout(timer);
    }
  };
  // Several run jobs at once, so a run queued while another executes starts at once instead of after a hand-over.
  for (let slot = 0; slot < settings.runJobsPerWorker; slot++) {
    await queue.work(QUEUES.run, { batchSize: 1, pollingIntervalSeconds }, workRunJob);
  }

  // Other workers join a run by looking for runs with units nobody holds: at its start, and whenever they are added.
  const joining = startRunJoining(db, {
    intervalSeconds: settings.runJoinSeconds,
    maxExecutorsPerRun: settings.maxExecutorsPerRun,
    executingRunIds: () => [...executions.keys()],
    join: (runId) => void executionOf(runId, true, undefined).catch(() => {}),
    logger,
  });
  const uploadCleanup = settings.uploadRetentionHours > 0 ? startUploadCleanup(db, settings.uploadRetentionHours, logger) : undefined;

  let metricsServer: WorkerMetricsServer | undefined;
  if (metrics && settings.metricsPort !== undefined) {
    metricsServer = await startWorkerMetricsServer(metrics, { workerId: settings.workerId, db, logger }, settings.metricsPort, settings.metricsHost);
    logger.info({ url: metricsServer.url }, `health and metrics on ${metricsServer.url}`);
  }
  return {
    queue,
    workerId: settings.workerId,
    logger,
    metricsUrl: metricsServer?.url,
    stop: async () => {
      const stopping = Date.now();
      await joining?.stop();
      await uploadCleanup?.stop();
      await queue.stop({ graceful: true, timeout: 30_000 });
      // Executions handed on to later jobs outlive their first job: they get what is left of the same grace period.
      const grace = Math.max(0, 30_000 - (Date.now() - stopping));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...executions.values()]), new Promise((resolve) => (timer = setTimeout(resolve, grace)))]);
      clearTimeout(timer);
      await releaseGrading();
      await metricsServer?.close();
      await capacity.stop();
      await endpoints.close();
      await registration.stop();
    },
  };
}

/** Deletes abandoned uploads now and then every hour (or sooner under a short retention). */
function startUploadCleanup(db: Db, retentionHours: number, logger: Logger): Repeating {
  const cleanUp = async () => {
    const { files, bytes } = await deleteAbandonedUploads(db, retentionHours);
    if (files > 0) logger.info({ files, bytes, retentionHours }, `deleted ${files} upload(s) no run took as input within ${retentionHours} h (${bytes} bytes)`);
  };
  return repeatEvery(Math.min(3600, retentionHours * 900) * 1000, cleanUp, { logger, failure: "abandoned uploads not cleaned up", now: true });
}

/**
 * The logger of one job: a child of the worker's logger (which carries `workerId`), so every line it
 * writes carries the run, the job (absent for a run found while looking for work) and the queue.
 */
export function jobLogger(workerLogger: Logger, job: { runId: string; jobId: string | undefined; queue: string; kind?: string; executorId?: string }): Logger {
  const { jobId, kind, executorId, ...rest } = job;
  return workerLogger.child({ ...rest, ...(jobId !== undefined ? { jobId } : {}), ...(kind !== undefined ? { kind } : {}), ...(executorId !== undefined ? { executorId } : {}) });
}
