import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDb, type Db } from "../client";
import "./provided-context";

/** Migrated once per test run; each test file's database is a copy of it. */
export const TEMPLATE_DATABASE = "stepwiser_template";

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A fresh, fully migrated database on the test run's server (see the Vitest global setup). */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  if (!adminUrl) {
    throw new Error("no test PostgreSQL in this project: a file that uses the database runs in the `integration` project (packages/config/vitest.config.ts finds it by the names it uses)");
  }
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const db = createDb(url, { poolSize: 5 });
  return {
    url,
    db,
    async drop() {
      await db.$disconnect();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
export * from "./table-counts";
