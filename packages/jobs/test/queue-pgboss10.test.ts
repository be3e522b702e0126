import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import { connectJobQueue, QUEUES, queueSettingsFromEnv, startJobQueue, type JobQueue } from "../src";

/**
 * The part of pg-boss 10's schema (version 24) that the move reads: its version
 * row and the job table's columns, with the job states it knew.
 */
async function createPgBoss10Schema(database: TestDatabase): Promise<void> {
  const { db } = database;
  await db.$executeRawUnsafe(`CREATE SCHEMA pgboss`);
  await db.$executeRawUnsafe(`CREATE TABLE pgboss.version (version int PRIMARY KEY, maintained_on timestamptz, cron_on timestamptz, monitored_on timestamptz)`);
  await db.$executeRawUnsafe(`INSERT INTO pgboss.version (version) VALUES (24)`);
  await db.$executeRawUnsafe(`CREATE TYPE pgboss.job_state AS ENUM ('created', 'retry', 'active', 'completed', 'cancelled', 'failed')`);
  await db.$executeRawUnsafe(`
    CREATE TABLE pgboss.job (
      id uuid NOT NULL DEFAULT gen_random_uuid(), name text NOT NULL, priority integer NOT NULL DEFAULT 0, data jsonb,
      state pgboss.job_state NOT NULL DEFAULT 'created', retry_count integer NOT NULL DEFAULT 0, singleton_key text,
      created_on timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (name, id))`);
  const jobs: Array<[string, object, string, number, string | null]> = [
    [QUEUES.run, { runId: "queued" }, "created", 0, null],
    [QUEUES.run, { runId: "handed-over", relay: true }, "created", 0, null],
    [QUEUES.run, { runId: "holder-died", relay: true }, "active", 0, null],
    [QUEUES.run, { runId: "helping", helper: true }, "retry", 2, null],
    [QUEUES.import, { runId: "import" }, "retry", 1, "import"],
    [QUEUES.export, { runId: "done" }, "completed", 0, "done"],
    [QUEUES.run, { runId: "gave-up" }, "failed", 3, null],
    ["__pgboss__send-it", { cron: true }, "created", 0, null],
  ];
  for (const [name, data, state, retryCount, key] of jobs) {
    await db.$executeRawUnsafe(
      `INSERT INTO pgboss.job (name, data, state, retry_count, singleton_key) VALUES ($1, $2::jsonb, $3::pgboss.job_state, $4, $5)`,
      name,
      JSON.stringify(data),
      state,
      retryCount,
      key,
    );
  }
}

describe("a database last served by pg-boss 10", () => {
  let database: TestDatabase | undefined;
  const queues: JobQueue[] = [];
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.stop({ graceful: false })));
    await database?.drop();
  });

  it("starts on pg-boss 12 with the jobs that had not ended, once, whichever processes start together", { timeout: 60_000 }, async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    await createPgBoss10Schema(database);
    const settings = queueSettingsFromEnv({});
    // A worker and the web app starting at the same moment.
    const started = await Promise.allSettled([startJobQueue(database.url, settings), connectJobQueue(database.url, settings)]);
    for (const result of started) if (result.status === "fulfilled") queues.push(result.value);
    for (const result of started) if (result.status === "rejected") throw result.reason;
    const [worker] = queues;

    const aside = await database.db.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM pg_namespace WHERE nspname = 'pgboss_v10'`;
    expect(Number(aside[0]!.n)).toBe(0);
    expect(await worker!.schemaVersion()).toBeGreaterThanOrEqual(25);

    const runJobs = await worker!.fetch<Record<string, unknown>>(QUEUES.run, { batchSize: 10 });
    // A started hand-over resumes its run as a new attempt; one still queued keeps helping.
    expect(runJobs.map((job) => job.data).sort((a, b) => String(a.runId).localeCompare(String(b.runId)))).toEqual([
      { runId: "handed-over", relay: true },
      { runId: "helping", helper: true },
      { runId: "holder-died" },
      { runId: "queued" },
    ]);
    expect(runJobs.every((job) => job.retryCount === 0)).toBe(true);
    const importJobs = await worker!.fetch(QUEUES.import, { batchSize: 10, includeMetadata: true });
    expect(importJobs.map((job) => [job.data, job.singletonKey])).toEqual([[{ runId: "import" }, "import"]]);
    // The queue's own policy, not pg-boss's defaults.
    expect(importJobs[0]!.retryLimit).toBe(settings.retryLimit);
    expect(await worker!.fetch(QUEUES.export, { batchSize: 10 })).toEqual([]);

    // Started again, nothing is moved twice.
    queues.push(await startJobQueue(database.url, settings));
    const { rows } = await worker!.getDb().executeSql(`SELECT count(*)::int AS n FROM pgboss.job`);
    expect(rows[0].n).toBe(5);
  });
});
