import { applyMigrations } from "@stepwiser/db/migrations";

/**
 * Databases already migrated by this process: commands run in one process (the
 * tests' in-process command line) check each database once rather than start
 * the schema engine, about a second, for every command.
 */
const migrated = new Map<string, Promise<unknown>>();

export function migrateOnce(url: string): Promise<unknown> {
  let applied = migrated.get(url);
  if (!applied) {
    applied = applyMigrations(url);
    applied.catch(() => migrated.delete(url));
    migrated.set(url, applied);
  }
  return applied;
}
