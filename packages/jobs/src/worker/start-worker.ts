import type { Db } from "@stepwiser/db";
import { runImport } from "../pipelines/import/handle";
import { importJobSchema } from "../pipelines/import/submit";
import { exportJobSchema, runExport } from "../exports/handle";
import { EndpointClients } from "../inference/endpoint-clients";
import { QUEUES, queueSettingsFromEnv, startJobQueue, type JobQueue } from "../queue/queue";
import { executeRun } from "../runs/engine";
import { RUN_HANDLERS } from "../runs/registry";
import { runJobSchema } from "../runs/submit-run";

export interface WorkerOptions {
  databaseUrl: string;
  db: Db;
  /** Records per import statement batch (smaller = finer-grained progress). */
  importBatchSize?: number;
  log?: (line: string) => void;
}

export interface RunningWorker {
  queue: JobQueue;
  stop(): Promise<void>;
}

/** Serves every pipeline queue until stopped; in-flight jobs finish before stop resolves. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const log = options.log ?? ((line) => console.log(line));
  const settings = queueSettingsFromEnv();
  const queue = await startJobQueue(options.databaseUrl, settings);
  await queue.work(
    QUEUES.import,
    { batchSize: 1, pollingIntervalSeconds: settings.pollingIntervalSeconds },
    async ([job]) => {
      if (!job) return;
      const { runId } = importJobSchema.parse(job.data);
      log(`[worker] import run ${runId}: started (job ${job.id})`);
      await runImport(options.db, runId, { batchSize: options.importBatchSize, queue });
      log(`[worker] import run ${runId}: done`);
    },
  );
  await queue.work(QUEUES.export, { batchSize: 1, pollingIntervalSeconds: settings.pollingIntervalSeconds }, async ([job]) => {
    if (!job) return;
    const { runId } = exportJobSchema.parse(job.data);
    log(`[worker] export run ${runId}: started (job ${job.id})`);
    await runExport(options.db, runId);
    log(`[worker] export run ${runId}: done`);
  });
  const endpoints = new EndpointClients();
  await queue.work(QUEUES.run, { batchSize: 1, pollingIntervalSeconds: settings.pollingIntervalSeconds }, async ([job]) => {
    if (!job) return;
    const { runId } = runJobSchema.parse(job.data);
    log(`[worker] run ${runId}: started (job ${job.id})`);
    await executeRun(options.db, runId, RUN_HANDLERS, { endpoints, log });
    log(`[worker] run ${runId}: done`);
  });
  return {
    queue,
    stop: async () => {
      await queue.stop({ graceful: true, wait: true, timeout: 30_000 });
      await endpoints.close();
    },
  };
}
