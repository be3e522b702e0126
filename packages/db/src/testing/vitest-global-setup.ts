import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../embedded/postgres-server";
import { applyMigrations } from "../migrations/migrate";
import { TEMPLATE_DATABASE } from "./test-database";
import "./provided-context";

/** Closes the migration engine's lingering connections so the template can be copied. */
async function sealTemplate(adminUrl: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE "${TEMPLATE_DATABASE}" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
    await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [TEMPLATE_DATABASE]);
  } finally {
    await client.end();
  }
}

/** Starts the one Postgres server of this test run and migrates the template database. */
export default async function setup(project: TestProject) {
  const scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-test-"));
  await chmod(scratch, 0o755); // the postgres OS user must be able to enter it
  const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true, fsync: false });
  try {
    await applyMigrations(server.url(TEMPLATE_DATABASE));
    await sealTemplate(server.url("postgres"));
  } catch (error) {
    await server.stop();
    throw error;
  }
  project.provide("postgresAdminUrl", server.url("postgres"));
  return async () => {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  };
}
