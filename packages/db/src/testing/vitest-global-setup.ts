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

interface SharedServer {
  url: string;
  /** The projects using it: the last to finish stops it. */
  users: number;
  stop(): Promise<void>;
}

async function startSharedServer(): Promise<SharedServer> {
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
  return {
    url: server.url("postgres"),
    users: 0,
    async stop() {
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** Kept on globalThis: every project naming this setup shares one server (and one migration of its template). */
const holder = globalThis as { stepwiserTestPostgres?: Promise<SharedServer> };

/** Starts the one Postgres server of this test run and migrates the template database, once for every project that uses it. */
export default async function setup(project: TestProject) {
  holder.stepwiserTestPostgres ??= startSharedServer();
  const shared = await holder.stepwiserTestPostgres;
  shared.users += 1;
  project.provide("postgresAdminUrl", shared.url);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder.stepwiserTestPostgres;
    await shared.stop();
  };
}
