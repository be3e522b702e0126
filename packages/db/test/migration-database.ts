import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";

export interface MigrationDatabase {
  /** The database's URL (set once the suite has started). */
  readonly url: string;
  /** A client connected to it. */
  readonly client: pg.Client;
}

/**
 * A new database migrated up to, not including, `migration` — the schema the
 * previous release left — for a suite that stores rows the old way, applies
 * the rest with `applyMigrations(db.url)` and checks what became of them.
 * Dropped when the suite ends.
 */
export function databaseBefore(migration: string): MigrationDatabase {
  const state: { url: string; client: pg.Client | null } = { url: "", client: null };
  const adminUrl = () => inject("postgresAdminUrl");
  beforeAll(async () => {
    const parsed = new URL(adminUrl());
    parsed.pathname = `/migration_${randomBytes(5).toString("hex")}`;
    state.url = parsed.toString();
    await applyMigrations(state.url, { before: migration });
    state.client = new pg.Client({ connectionString: state.url });
    await state.client.connect();
  });
  afterAll(async () => {
    await state.client?.end();
    if (!state.url) return;
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${new URL(state.url).pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  });
  return {
    get url() {
      return state.url;
    },
    get client() {
      if (!state.client) throw new Error("the migration database is not ready: use it inside a test");
      return state.client;
    },
  };
}

/**
 * The migration that gave solutions their one name (tables, columns, keys). A suite
 * of an earlier migration stores and reads rows under the names of its time, so it
 * migrates up to, not including, this one.
 */
export const BEFORE_SOLUTION_NAMES = "20261203100000_solution_names";
