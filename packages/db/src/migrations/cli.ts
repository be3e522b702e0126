import { chmod, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../embedded/postgres-server";
import { applyMigrations, createMigration, migrationStatus } from "./migrate";

/**
 * `migrate:create <name>`: diff prisma/schema.prisma against prisma/migrations on a
 * throw-away embedded server (or DATABASE_URL) and write the new migration.
 * `status` / `apply`: against DATABASE_URL.
 */
async function makeScratchDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "stepwiser-migrate-"));
  await chmod(dir, 0o755); // the postgres OS user must be able to enter it
  return dir;
}

async function main() {
  const [command, name] = process.argv.slice(2);
  if (command === "create") {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("usage: migrate:create <snake_case_name>");
    const server = process.env.DATABASE_URL
      ? undefined
      : await startEmbeddedPostgres({ dataDir: path.join(await makeScratchDir(), "pg"), ephemeral: true });
    const url = process.env.DATABASE_URL ?? server!.url("stepwiser_migrate");
    try {
      await applyMigrations(url);
      const created = await createMigration(url, name);
      console.log(created ? `created prisma/migrations/${created}` : "schema unchanged: no migration created");
    } finally {
      await server?.stop();
    }
  } else if (command === "apply" || command === "status") {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error(`${command} needs DATABASE_URL`);
    console.log(JSON.stringify(command === "apply" ? await applyMigrations(url) : await migrationStatus(url), null, 2));
  } else {
    throw new Error("usage: cli.ts create <name> | apply | status");
  }
}

main().then(
  () => process.exit(0), // the engine keeps a pool open; leave promptly
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
