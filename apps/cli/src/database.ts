import { createDb, type Db } from "@stepwiser/db";
import { openLocalDatabase, resolveDataDir } from "@stepwiser/db/local";
import { migrateOnce } from "./migrate-once";
import { repoRoot } from "./paths";

/**
 * Runs `work` on the configured database (DATABASE_URL, else the embedded one),
 * migrated. Imports only the database layer, so a command that reads or
 * changes a few rows pays for connecting and little else.
 */
export async function withDatabase<T>(work: (db: Db, url: string) => Promise<T>): Promise<T> {
  const database = await openLocalDatabase({ dataDir: resolveDataDir(repoRoot), log: () => {} });
  const db = createDb(database.url, { poolSize: 8 });
  try {
    await migrateOnce(database.url);
    return await work(db, database.url);
  } finally {
    await db.$disconnect();
    await database.release();
  }
}
