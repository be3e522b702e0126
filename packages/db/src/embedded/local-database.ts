import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { isTraversableByOthers, startEmbeddedPostgres, type RunningPostgres } from "./postgres-server";

/**
 * Where the product keeps its local state (embedded Postgres cluster, auth
 * secret, runtime info): STEPWISER_DATA_DIR, else `<repo>/.data`. When running
 * as root from a checkout the postgres OS user cannot enter (mode-700 home),
 * a per-checkout folder under /var/tmp is used instead.
 */
export function resolveDataDir(repoRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.STEPWISER_DATA_DIR) return path.resolve(env.STEPWISER_DATA_DIR);
  const inRepo = path.join(repoRoot, ".data");
  const runningAsRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!runningAsRoot || isTraversableByOthers(inRepo)) return inRepo;
  const key = createHash("sha256").update(path.resolve(repoRoot)).digest("hex").slice(0, 12);
  return path.join("/var/tmp", `stepwiser-data-${key}`);
}

export const DATABASE_NAME = "stepwiser";

interface RuntimeInfo {
  databaseUrl: string;
  postgresPid: number;
  ownerPid: number;
}

export interface LocalDatabase {
  url: string;
  /** "external": DATABASE_URL; "embedded": started here; "shared": another process's embedded server. */
  origin: "external" | "embedded" | "shared";
  /** Stops the embedded server if this call started it. */
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function ensureDatabase(server: RunningPostgres, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.url("postgres") });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

/**
 * The database the product should use: DATABASE_URL when set (the embedded
 * server is then never started); else the embedded server of this data dir,
 * reusing one another local process (e.g. `npm start`) already runs.
 */
export async function openLocalDatabase(options: {
  dataDir: string;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}): Promise<LocalDatabase> {
  const env = options.env ?? process.env;
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, origin: "external", release: async () => {} };

  const runtimeFile = path.join(options.dataDir, "runtime.json");
  if (existsSync(runtimeFile)) {
    const info = JSON.parse(await readFile(runtimeFile, "utf8")) as RuntimeInfo;
    if (alive(info.postgresPid) && alive(info.ownerPid) && (await canConnect(info.databaseUrl))) {
      return { url: info.databaseUrl, origin: "shared", release: async () => {} };
    }
  }

  await mkdir(options.dataDir, { recursive: true });
  const server = await startEmbeddedPostgres({ dataDir: path.join(options.dataDir, "pg"), log: options.log });
  await ensureDatabase(server, DATABASE_NAME);
  const url = server.url(DATABASE_NAME);
  const info: RuntimeInfo = { databaseUrl: url, postgresPid: server.pid, ownerPid: process.pid };
  await writeFile(runtimeFile, JSON.stringify(info), { mode: 0o600 });
  return {
    url,
    origin: "embedded",
    release: async () => {
      await server.stop();
      await rm(runtimeFile, { force: true });
    },
  };
}

/** A secret kept in the data dir, generated on first use (e.g. the auth cookie secret). */
export async function persistentSecret(dataDir: string, name: string): Promise<string> {
  const file = path.join(dataDir, `${name}.secret`);
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}
