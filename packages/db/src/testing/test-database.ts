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

/**
 * A fresh database on the test run's server (see the Vitest global setup): a copy of
 * the migrated template, or of another template database on that server (such as the
 * finished simulated world of `@stepwiser/jobs/testing/simulated-world`).
 */
export async function createTestDatabase(adminUrl: string, options: { template?: string } = {}): Promise<TestDatabase> {
  if (!adminUrl) {
    throw new Error("no test PostgreSQL in this project: a file that uses the database runs in the `integration` project (packages/config/vitest.config.ts finds it by the names it uses)");
  }
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${options.template ?? TEMPLATE_DATABASE}"`);
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

/** Any fixed key: the advisory lock under which a built template is made once per test run. */
const BUILT_TEMPLATE_LOCK = 7_340_215;

/**
 * A fresh copy of a template database that `build` fills once per test run (from the
 * migrated template), with the description `build` returned. The first test file that
 * asks builds it, under an advisory lock so files asking at once wait for one build,
 * stores the description as the database's comment and seals it as a template;
 * every later file only clones it. A build that failed half-way left no comment and
 * is made again.
 */
export async function createDatabaseFromBuiltTemplate<T>(
  adminUrl: string,
  name: string,
  build: (url: string) => Promise<T>,
): Promise<TestDatabase & { description: T }> {
  if (!adminUrl) throw new Error(`no test PostgreSQL in this project: a file that uses the ${name} template runs in the \`integration\` project`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let description: T;
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [BUILT_TEMPLATE_LOCK]);
    const found = await admin.query<{ description: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS description FROM pg_database WHERE datname = $1",
      [name],
    );
    const stored = found.rows[0]?.description;
    if (stored) {
      description = JSON.parse(stored) as T;
    } else {
      if (found.rows.length > 0) {
        await admin.query(`ALTER DATABASE "${name}" IS_TEMPLATE false`);
        await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
      }
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`);
      description = await build(withDatabase(adminUrl, name));
      // A template that is copied may have no open connection.
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
      await admin.query(`COMMENT ON DATABASE "${name}" IS ${admin.escapeLiteral(JSON.stringify(description))}`);
    }
  } finally {
    await admin.query("SELECT pg_advisory_unlock($1)", [BUILT_TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end();
  }
  return { ...(await createTestDatabase(adminUrl, { template: name })), description };
}

export * from "./table-counts";
