import { readdirSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { applyMigrations, migrationsDir, migrationsUpToDate } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/**
 * A command that needs the database checks its migrations with two reads rather
 * than the schema engine; anything but a database holding exactly the shipped
 * migrations, finished and unchanged, still goes to the engine.
 */
describe("the migration check before the schema engine", () => {
  const shipped = readdirSync(migrationsDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const last = shipped.at(-1)!;
  const db = databaseBefore(last);

  it("sends a database missing the last migration to the engine, which applies it; then it is up to date", async () => {
    expect(await migrationsUpToDate(db.url)).toBe(false);
    expect(await applyMigrations(db.url)).toEqual([last]);
    expect(await migrationsUpToDate(db.url)).toBe(true);
    expect(await applyMigrations(db.url)).toEqual([]);
  });

  it("is not up to date when a recorded checksum differs from the shipped file, or a migration failed or is under way", async () => {
    const { client } = db;
    const { rows } = await client.query<{ checksum: string }>(`SELECT checksum FROM _prisma_migrations WHERE migration_name = $1`, [last]);
    await client.query(`UPDATE _prisma_migrations SET checksum = 'edited' WHERE migration_name = $1`, [last]);
    expect(await migrationsUpToDate(db.url)).toBe(false);
    await client.query(`UPDATE _prisma_migrations SET checksum = $2, finished_at = NULL WHERE migration_name = $1`, [last, rows[0]!.checksum]);
    expect(await migrationsUpToDate(db.url)).toBe(false);
    await client.query(`UPDATE _prisma_migrations SET finished_at = now() WHERE migration_name = $1`, [last]);
    expect(await migrationsUpToDate(db.url)).toBe(true);
  });

  it("is not up to date when the database holds a migration this release does not ship", async () => {
    const { client } = db;
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('later', 'x', '99999999999999_later', now(), now(), 1)`,
    );
    expect(await migrationsUpToDate(db.url)).toBe(false);
    await client.query(`DELETE FROM _prisma_migrations WHERE id = 'later'`);
  });

  it("is not up to date for a database that does not exist or was never migrated", async () => {
    const missing = new URL(inject("postgresAdminUrl"));
    missing.pathname = "/no_such_database_here";
    expect(await migrationsUpToDate(missing.toString())).toBe(false);
    expect(await migrationsUpToDate(inject("postgresAdminUrl"))).toBe(false);
  });
});
