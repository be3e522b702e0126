import { applyMigrations } from "@stepwiser/db/migrations";

/**
 * Databases already checked by this process: commands run in one process (the
 * tests' in-process command line) check each database once. The check itself
 * is two reads when nothing is pending (see migrationsUpToDate).
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
