import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type Db = PrismaClient;

export function createDb(databaseUrl: string, options: { poolSize?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
  return new PrismaClient({ adapter });
}

const globalForDb = globalThis as { stepwiserDb?: Db };

/** The process-wide client for DATABASE_URL (one pool per process, reused across hot reloads). */
export function getDb(): Db {
  if (!globalForDb.stepwiserDb) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set");
    globalForDb.stepwiserDb = createDb(url);
  }
  return globalForDb.stepwiserDb;
}
