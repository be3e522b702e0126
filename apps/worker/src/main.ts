import { createDb } from "@stepwiser/db";
import { isDatabaseConnectionError, startWorker } from "@stepwiser/jobs";
import { createLogger, firstLine } from "@stepwiser/jobs/log";

/** JSON lines, or pretty ones at a terminal (STEPWISER_LOG_LEVEL, STEPWISER_LOG_FORMAT); the worker binds its id on every line. */
const logger = createLogger({ name: "worker" });

/**
 * A lost database connection that surfaces as an unhandled rejection is survivable.
 * pg-boss 10 recorded a job's end without waiting on it, so an outage surfaced here;
 * pg-boss 12 awaits it and reports a failure as an `error` event, and this stays as
 * the guard for any other query left unawaited. A job whose end was not recorded is
 * retried after its expiry; the worker carries on and reconnects. Any other
 * unhandled rejection is a bug and stops the process, as Node would.
 */
process.on("unhandledRejection", (reason: unknown) => {
  if (isDatabaseConnectionError(reason)) {
    logger.warn({ error: firstLine(reason) }, "database unreachable, carrying on");
    return;
  }
  logger.fatal({ err: reason }, "unhandled rejection");
  process.exit(1);
});

/** The job worker process: serves every pipeline queue until SIGINT/SIGTERM. */
async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is not set");
  const db = createDb(databaseUrl);
  const importBatchSize = process.env.STEPWISER_IMPORT_BATCH_SIZE ? Number(process.env.STEPWISER_IMPORT_BATCH_SIZE) : undefined;
  const worker = await startWorker({ databaseUrl, db, importBatchSize, logger });
  // Waited for by whoever starts workers and needs them serving (apps/worker/test/scale-out.test.ts): keep the message.
  worker.logger.info("ready");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    worker.logger.info({ signal }, `${signal}: finishing in-flight jobs`);
    await worker.stop();
    await db.$disconnect();
    worker.logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, "the worker could not start");
  process.exit(1);
});
