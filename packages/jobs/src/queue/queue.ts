import { PgBoss, type StopOptions } from "pg-boss";
import { createLogger, type Logger } from "../log/logger";
import { beginPgBoss10Move } from "./pgboss-10-schema";

/** Every queue the worker serves; one per pipeline. */
export const QUEUES = {
  /** Imports of uploaded files (every format); job data is { runId }. */
  import: "import",
  /** Exports (training sets, labels, predictions) written into stored files; job data is { runId }. */
  export: "export",
  /** Every run kind of the StepWiser method (annotate, judge, …); job data is { runId }. */
  run: "run",
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface QueueSettings {
  /**
   * How long a job may stay active before it is presumed lost (its worker died)
   * and retried. Queues set no pg-boss heartbeat (`heartbeatSeconds`, pg-boss 11
   * and later), so this bounds crash recovery time.
   */
  expireInSeconds: number;
  /** How often expired jobs are swept (pg-boss 12's supervise and monitor intervals). */
  maintenanceIntervalSeconds: number;
  retryLimit: number;
  pollingIntervalSeconds: number;
}

export function queueSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): QueueSettings {
  const num = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
    return value;
  };
  const settings = {
    expireInSeconds: num("STEPWISER_JOB_EXPIRE_SECONDS", 900),
    maintenanceIntervalSeconds: num("STEPWISER_QUEUE_MAINTENANCE_SECONDS", 30),
    retryLimit: num("STEPWISER_JOB_RETRY_LIMIT", 3),
    pollingIntervalSeconds: num("STEPWISER_QUEUE_POLL_SECONDS", 0.5),
  };
  // pg-boss refuses to poll more often than every half second, to sweep more often than every second,
  // or to expire a job after more than 24 hours (pg-boss 12.38, attorney.js).
  if (settings.pollingIntervalSeconds < 0.5) throw new Error(`STEPWISER_QUEUE_POLL_SECONDS must be at least 0.5, got ${settings.pollingIntervalSeconds}`);
  if (settings.maintenanceIntervalSeconds < 1) throw new Error(`STEPWISER_QUEUE_MAINTENANCE_SECONDS must be at least 1, got ${settings.maintenanceIntervalSeconds}`);
  // It stores a job's expiry and retry limit as whole numbers.
  if (!Number.isInteger(settings.expireInSeconds) || settings.expireInSeconds > 86_400) throw new Error(`STEPWISER_JOB_EXPIRE_SECONDS must be a whole number of seconds up to 86400, got ${settings.expireInSeconds}`);
  if (!Number.isInteger(settings.retryLimit)) throw new Error(`STEPWISER_JOB_RETRY_LIMIT must be a whole number, got ${settings.retryLimit}`);
  return settings;
}

/**
 * The product's pg-boss instance. pg-boss 11 dropped stop()'s `wait` option: stop() now always
 * resolves once the instance has shut down, which is what `wait: true` asked of pg-boss 10, so
 * callers that still pass it get exactly that.
 */
export class JobQueue extends PgBoss {
  override stop(options: StopOptions & { wait?: true } = {}): Promise<void> {
    const { wait: _wait, ...rest } = options;
    return super.stop(rest);
  }
}

/** Starts pg-boss on the product's own Postgres (schema `pgboss`) and declares its queues. */
export async function startJobQueue(databaseUrl: string, settings = queueSettingsFromEnv(), logger: Logger = createLogger({ name: "queue" })): Promise<JobQueue> {
  const boss = new JobQueue({
    connectionString: databaseUrl,
    max: 4,
    // pg-boss 12 fails expired jobs in its monitor pass, run every supervise interval for the queues
    // whose monitor interval is up (both default to 60 s); its maintenance interval only paces the
    // deletion of old jobs, so that keeps its default.
    superviseIntervalSeconds: settings.maintenanceIntervalSeconds,
    monitorIntervalSeconds: settings.maintenanceIntervalSeconds,
  });
  boss.on("error", (error: Error) => logger.error({ err: error }, `queue: ${error.message}`));
  await startQueues(boss, databaseUrl, settings, true, logger);
  return boss;
}

function queuePolicy(settings: QueueSettings) {
  return { retryLimit: settings.retryLimit, retryDelay: 1, retryBackoff: true, expireInSeconds: settings.expireInSeconds };
}

/**
 * A queue handle for processes that only enqueue (web app, CLI): no
 * maintenance or scheduling loops, which belong to workers.
 */
export async function connectJobQueue(databaseUrl: string, settings = queueSettingsFromEnv(), logger: Logger = createLogger({ name: "queue" })): Promise<JobQueue> {
  const boss = new JobQueue({ connectionString: databaseUrl, max: 2, supervise: false, schedule: false });
  boss.on("error", (error: Error) => logger.error({ err: error }, `queue: ${error.message}`));
  await startQueues(boss, databaseUrl, settings, false, logger);
  return boss;
}

/** Starts pg-boss and declares the queues; on a database pg-boss 10 served, its pending jobs come along first. */
async function startQueues(boss: JobQueue, databaseUrl: string, settings: QueueSettings, ownPolicy: boolean, logger: Logger): Promise<void> {
  const move = await beginPgBoss10Move(databaseUrl);
  try {
    await boss.start();
    await declareQueues(boss, settings);
    // Workers own the queue policy: apply the current settings to queues declared earlier.
    if (ownPolicy) for (const name of Object.values(QUEUES)) await boss.updateQueue(name, queuePolicy(settings));
    // After the policy: a job takes its queue's retry and expiry settings when it is sent.
    const moved = await move?.finish(boss, Object.values(QUEUES));
    if (moved !== undefined) logger.info({ moved }, `moved ${moved} pending job(s) from pg-boss 10's schema`);
  } finally {
    await move?.release();
  }
}

/**
 * What another process declaring queues at the same moment can end a declaration
 * with. pg-boss 10 created each queue's partition of its job table without a lock
 * across queues, so two processes could deadlock there; pg-boss 12 keeps every
 * queue in one shared table and creates queues under an advisory lock, but a
 * deadlock or lock timeout in a declaration is still retried rather than fatal.
 */
const CONCURRENT_DECLARATION_CODES = new Set(["40P01", "55P03", "40001"]);
const DECLARE_ATTEMPTS = 8;

async function declareQueues(boss: JobQueue, settings: QueueSettings): Promise<void> {
  for (const name of Object.values(QUEUES)) {
    for (let attempt = 1; !(await boss.getQueue(name)); attempt++) {
      try {
        await boss.createQueue(name, queuePolicy(settings));
      } catch (error) {
        // Another process declared it at the same moment.
        if (await boss.getQueue(name)) break;
        const code = (error as { code?: unknown }).code;
        if (attempt >= DECLARE_ATTEMPTS || typeof code !== "string" || !CONCURRENT_DECLARATION_CODES.has(code)) throw error;
        // Apart, at random, so the processes that collided do not collide again.
        await new Promise((resolve) => setTimeout(resolve, 25 * attempt + Math.random() * 100 * attempt));
      }
    }
  }
}
