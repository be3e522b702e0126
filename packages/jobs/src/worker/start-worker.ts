import type { Db } from "@stepwiser/db";
import { runProcessBenchImport } from "../pipelines/import-processbench/handle";
import { importProcessBenchJobSchema } from "../pipelines/import-processbench/submit";
import { QUEUES, queueSettingsFromEnv, startJobQueue, type JobQueue } from "../queue/queue";

export interface WorkerOptions {
  databaseUrl: string;
  db: Db;
  /** Records per import transaction (smaller = finer-grained progress). */
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
    QUEUES.importProcessBench,
    { batchSize: 1, pollingIntervalSeconds: settings.pollingIntervalSeconds },
    async ([job]) => {
      if (!job) return;
      const { runId } = importProcessBenchJobSchema.parse(job.data);
      log(`[worker] import run ${runId}: started (job ${job.id})`);
      await runProcessBenchImport(options.db, runId, { batchSize: options.importBatchSize });
      log(`[worker] import run ${runId}: done`);
    },
  );
  return {
    queue,
    stop: () => queue.stop({ graceful: true, wait: true, timeout: 30_000 }),
  };
}
