import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/**
 * The schema engine takes the migration lock (a session advisory lock) on its own
 * connection. Whatever applyMigrations opened is closed when it returns, so the lock
 * goes with it: a process that migrated once (a command line run in a test process,
 * the launcher) must not make the next migration of the database wait for it.
 */
describe("applyMigrations leaves no connection or lock behind", () => {
  // Named after every migration: the database has all of them, applied by an engine of this process.
  const db = databaseBefore("99999999999999_after_every_migration");

  async function othersOn(url: string): Promise<{ connections: number; advisoryLocks: number }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const connections = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
      // This database's advisory locks only: other test files' databases share the server.
      const locks = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
      return { connections: connections.rows[0]!.n, advisoryLocks: locks.rows[0]!.n };
    } finally {
      await client.end();
    }
  }

  it("after migrating a database, and after checking it again", async () => {
    // The suite's own client is the one connection expected besides the one counting.
    expect(await othersOn(db.url)).toEqual({ connections: 1, advisoryLocks: 0 });
    expect(await applyMigrations(db.url)).toEqual([]);
    expect(await othersOn(db.url)).toEqual({ connections: 1, advisoryLocks: 0 });
  });
});
