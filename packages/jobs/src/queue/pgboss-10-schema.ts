import pg from "pg";
import type { PgBoss } from "pg-boss";

/**
 * pg-boss 11 rewrote its tables and ships no migration from pg-boss 10's schema
 * (version 24): its 11.0.0 release notes say to move the jobs by hand, and
 * pg-boss 12 refuses to start on it ("the oldest supported starting version is
 * 25", migrationStore.js in 12.38). So a database last served by pg-boss 10 has
 * that schema renamed aside, pg-boss installs its own, the jobs that had not
 * ended are sent again with their ids, and the old schema is dropped. Run state
 * lives in our own tables, so nothing else in it is needed.
 */
const SCHEMA = "pgboss";
const ASIDE = "pgboss_v10";
const FIRST_PGBOSS_11_SCHEMA = 25;
/** Taken by the one process moving the jobs; every other one waits on it before it starts pg-boss. */
const MOVE_LOCK = "stepwiser:pgboss-10-move";
const INSERT_BATCH = 500;

export interface PgBoss10Move {
  /** Sends the old schema's pending jobs of `queues` into the started pg-boss, then drops the old schema. */
  finish(boss: PgBoss, queues: readonly string[]): Promise<number>;
  /** Lets the processes waiting on the move go on; also after a failure, which the next start resumes. */
  release(): Promise<void>;
}

interface OldJob {
  id: string;
  name: string;
  data: unknown;
  priority: number;
  singleton_key: string | null;
  started: boolean;
}

/**
 * Before pg-boss starts: undefined when the database holds no pg-boss 10 schema
 * (a new database, or one already moved); otherwise the old schema is set aside
 * under a lock this process holds until `release`.
 */
export async function beginPgBoss10Move(databaseUrl: string): Promise<PgBoss10Move | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Ending the session releases its advisory lock.
    if (!(await moveDue(client))) return void (await client.end());
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [MOVE_LOCK]);
    // Another process may have moved the jobs while this one waited.
    if (!(await moveDue(client))) return void (await client.end());
    if ((await oldSchemaVersion(client)) !== undefined) await client.query(`ALTER SCHEMA ${SCHEMA} RENAME TO ${ASIDE}`);
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    finish: (boss, queues) => resendPendingJobs(client, boss, queues),
    release: () => client.end(),
  };
}

/** pg-boss 10's schema is still in place, or set aside by a move that has not finished. */
async function moveDue(client: pg.Client): Promise<boolean> {
  return (await oldSchemaVersion(client)) !== undefined || (await isAside(client));
}

/** Postgres's codes for a table or schema that does not exist. */
const ABSENT_CODES = new Set(["42P01", "3F000"]);

async function oldSchemaVersion(client: pg.Client): Promise<number | undefined> {
  // One statement, not a look-up and then a read: another process may rename the schema between two.
  let version: number | undefined;
  try {
    version = (await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA}.version`)).rows[0]?.version;
  } catch (error) {
    if (ABSENT_CODES.has(String((error as { code?: unknown }).code))) return undefined;
    throw error;
  }
  return version !== undefined && version < FIRST_PGBOSS_11_SCHEMA ? version : undefined;
}

async function isAside(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(`SELECT to_regclass('${ASIDE}.job') IS NOT NULL AS present`);
  return rows[0]?.present ?? false;
}

async function resendPendingJobs(client: pg.Client, boss: PgBoss, queues: readonly string[]): Promise<number> {
  const { rows } = await client.query<OldJob>(
    `SELECT id, name, data, priority, singleton_key, state IN ('retry', 'active') AS started
       FROM ${ASIDE}.job WHERE name = ANY($1) AND state IN ('created', 'retry', 'active') ORDER BY created_on`,
    [queues],
  );
  for (const name of queues) {
    const jobs = rows.filter((job) => job.name === name);
    for (let from = 0; from < jobs.length; from += INSERT_BATCH) {
      // The same ids: a move cut short and resumed does not send a job twice (pg-boss inserts with ON CONFLICT DO NOTHING).
      await boss.insert(
        name,
        jobs.slice(from, from + INSERT_BATCH).map((job) => ({
          id: job.id,
          data: (job.started ? restarted(job.data) : job.data) as object,
          priority: job.priority,
          ...(job.singleton_key === null ? {} : { singletonKey: job.singleton_key }),
        })),
      );
    }
  }
  await client.query(`DROP SCHEMA ${ASIDE} CASCADE`);
  return rows.length;
}

/**
 * A job that had started is sent again as a first claim, so it no longer says it
 * was retried. A run's hand-over whose holder is gone resumes the run as a new
 * attempt (see runJobRole): without `relay`, as pg-boss 10 would have run it once
 * it expired and was retried.
 */
function restarted(data: unknown): unknown {
  if (data === null || typeof data !== "object" || !("relay" in data)) return data;
  const { relay: _relay, ...rest } = data as Record<string, unknown>;
  return rest;
}
