import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureAdminUser } from "@stepwiser/api";
import { createDb } from "@stepwiser/db";
import { findFreePort, openLocalDatabase, persistentSecret, resolveDataDir } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { connectJobQueue } from "@stepwiser/jobs";
import { completeDemoQueue, demoModeOf, seedDemoData } from "./demo-data";

/**
 * `npm start`: the whole product on its embedded defaults. Starts (or reuses)
 * Postgres, applies migrations, creates the first admin, queues the demo data,
 * then runs the web app and the worker until Ctrl-C, and stops Postgres last.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * STEPWISER_DEMO_DATA: "1" (default) the ProcessBench demo subsets and, with the
 * simulated cluster, a small simulated-world dataset with named annotate and judge
 * runs queued on it; "sim" only the latter; "0" nothing. Once per database.
 */
async function queueDemoData(databaseUrl: string, simulated: boolean): Promise<string[]> {
  const mode = demoModeOf(process.env.STEPWISER_DEMO_DATA);
  if (mode === "0") return [];
  const db = createDb(databaseUrl, { poolSize: 2 });
  try {
    const queue = await connectJobQueue(databaseUrl);
    try {
      return await seedDemoData(db, queue, { mode, simulated });
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
  } finally {
    await db.$disconnect();
  }
}

/**
 * In the background of every start: the demo annotation queue, made once the
 * demo annotate run has finished (see completeDemoQueue). A failure is reported
 * and leaves the app running; the next start tries again.
 */
function finishDemoQueueInBackground(databaseUrl: string, signal: AbortSignal): Promise<void> {
  const db = createDb(databaseUrl, { poolSize: 2 });
  return completeDemoQueue(db, { signal, log: (line) => say(`» ${line}`) })
    .then((made) => {
      if (made) say(`» demo annotation queue ready: ${made.items} solutions, ${made.submissions} submissions by the demo annotators (accounts without a password: nobody signs in as them)`);
    })
    .catch((error: unknown) => {
      say(`» the demo annotation queue could not be made: ${error instanceof Error ? error.message : String(error)}`);
    })
    .finally(async () => {
      await db.$disconnect();
    });
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the web app exited during start-up (code ${child.exitCode})`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the web app did not answer ${url} within ${timeoutMs / 1000} s`);
}

function spawnService(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd = root): ChildProcess {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const prefix = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let pending = "";
    stream.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) out.write(`[${name}] ${line}\n`);
    });
  };
  prefix(child.stdout!, process.stdout);
  prefix(child.stderr!, process.stderr);
  return child;
}

/**
 * The simulated models, the role each plays and the judge protocols each speaks (absent:
 * the default chat prompts); registered as endpoints on every start. A new endpoint gets
 * these protocols; an existing one keeps what an admin declared.
 */
const SIM_ENDPOINTS: readonly { model: string; role: "policy" | "judge" | "segmenter"; protocols?: string[] }[] = [
  { model: "sim-policy", role: "policy" },
  { model: "sim-judge-strong", role: "judge" },
  { model: "sim-judge-medium", role: "judge" },
  { model: "sim-judge-weak", role: "judge" },
  { model: "sim-judge-correlated", role: "judge" },
  { model: "arith-checker", role: "judge" },
  { model: "sim-thinkprm", role: "judge", protocols: ["thinkprm"] },
  { model: "sim-genprm", role: "judge", protocols: ["genprm"] },
  { model: "sim-math-prm", role: "judge", protocols: ["discriminative-prm"] },
  { model: "sim-outcome-rm", role: "judge", protocols: ["outcome-pointwise", "outcome-pairwise"] },
  { model: "sim-segmenter", role: "segmenter" },
];

/**
 * Starts the built-in simulated inference cluster (the embedded default, as the
 * embedded Postgres is) and resolves with its replicas' base URLs.
 */
async function startSimCluster(children: ChildProcess[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const replicas = process.env.STEPWISER_SIM_REPLICAS ?? "2";
  // Simulated seconds per real second; the browser tests shorten the runs they wait for.
  const timeScale = process.env.STEPWISER_SIM_TIME_SCALE;
  const args = ["sim-cluster", "--replicas", replicas, ...(timeScale ? ["--time-scale", timeScale] : [])];
  // The built command line (bin/stepwiser) starts in a fraction of the time the sources take through tsx.
  const child = spawn(process.execPath, [path.join(root, "bin", "stepwiser"), ...args], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  child.stderr!.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) process.stderr.write(`[sim] ${line}\n`);
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf("\n");
      if (newline !== -1) {
        child.stdout!.off("data", onData);
        child.stdout!.resume(); // nothing else is expected there; keep the pipe drained anyway
        resolve(buffered.slice(0, newline));
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the simulated cluster exited during start-up (code ${code})`)));
  });
  return (JSON.parse(firstLine) as { replicas: Array<{ url: string }> }).replicas.map((r) => r.url);
}

/** Points the simulated endpoints at this start's replicas (ports change between starts). */
async function registerSimEndpoints(databaseUrl: string, baseUrls: string[]): Promise<void> {
  const db = createDb(databaseUrl, { poolSize: 2 });
  try {
    for (const { model, role, protocols } of SIM_ENDPOINTS) {
      await db.endpoint.upsert({
        where: { name: model },
        create: { name: model, model, role, baseUrls, maxConcurrency: 256, ...(protocols ? { protocols } : {}) },
        update: { baseUrls },
      });
    }
  } finally {
    await db.$disconnect();
  }
}

function stopChild(child: ChildProcess, timeoutMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

async function main() {
  const started = Date.now();
  const dataDir = resolveDataDir(root);
  say(`» data directory: ${dataDir}`);
  const database = await openLocalDatabase({ dataDir });
  if (database.origin === "shared") {
    throw new Error(`StepWiser Studio is already running on this data directory (${dataDir}); stop it first or set STEPWISER_DATA_DIR`);
  }
  say(database.origin === "external" ? "» using the external database from DATABASE_URL" : "» embedded PostgreSQL is up");

  const children: ChildProcess[] = [];
  const demoSteps = new AbortController();
  let demoQueue: Promise<void> = Promise.resolve();
  let shuttingDown = false;
  const shutdown = async (reason: string, exitCode: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`\n» ${reason}: stopping the web app and the worker, then PostgreSQL`);
    demoSteps.abort();
    await demoQueue;
    await Promise.all(children.map((c) => stopChild(c)));
    await database.release();
    say("» stopped");
    process.exit(exitCode);
  };
  process.on("SIGINT", () => void shutdown("SIGINT", 0));
  process.on("SIGTERM", () => void shutdown("SIGTERM", 0));
  process.on("SIGHUP", () => void shutdown("SIGHUP", 0));

  try {
    const applied = await applyMigrations(database.url);
    if (applied.length) say(`» applied migrations: ${applied.join(", ")}`);

    const adminEmail = process.env.STEPWISER_ADMIN_EMAIL ?? "admin@stepwiser.local";
    const db = createDb(database.url, { poolSize: 2 });
    const admin = await ensureAdminUser(db, { email: adminEmail, password: process.env.STEPWISER_ADMIN_PASSWORD });
    await db.$disconnect();

    const port = process.env.PORT ? Number(process.env.PORT) : await findFreePort(3000);
    const publicUrl = process.env.STEPWISER_PUBLIC_URL ?? `http://localhost:${port}`;
    const serviceEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      STEPWISER_AUTH_SECRET: process.env.STEPWISER_AUTH_SECRET ?? (await persistentSecret(dataDir, "auth")),
      STEPWISER_PUBLIC_URL: publicUrl,
      // The URL printed says localhost; the same server reached as 127.0.0.1 must sign in too.
      STEPWISER_TRUSTED_ORIGINS: process.env.STEPWISER_TRUSTED_ORIGINS ?? `http://127.0.0.1:${port}`,
      PORT: String(port),
      NODE_ENV: "production",
      // The services' logs reach this terminal through a pipe: readable lines when a person watches, JSON otherwise.
      STEPWISER_LOG_FORMAT: process.env.STEPWISER_LOG_FORMAT ?? (process.stdout.isTTY ? "pretty" : "json"),
    };

    if (process.env.STEPWISER_SIM_CLUSTER !== "0") {
      const simUrls = await startSimCluster(children, serviceEnv);
      await registerSimEndpoints(database.url, simUrls);
      say(`» simulated inference cluster: ${simUrls.join(", ")}`);
    }
    const demo = await queueDemoData(database.url, process.env.STEPWISER_SIM_CLUSTER !== "0");
    if (demo.length) say(`» queued demo data: ${demo.join("; ")}`);
    children.push(spawnService("worker", process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], serviceEnv));
    const web = spawnService("web", process.execPath, ["server.ts", "-p", String(port), "-H", "0.0.0.0"], serviceEnv, path.join(root, "apps", "web"));
    children.push(web);
    for (const child of children) {
      child.once("exit", (code) => {
        if (!shuttingDown) void shutdown(`a service exited unexpectedly (code ${code})`, 1);
      });
    }
    await waitForHttp(`http://127.0.0.1:${port}/api/health`, web, 60_000);

    say("");
    say(`StepWiser Studio is running at ${publicUrl}  (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    if (admin.created) {
      say(`Sign in as ${admin.email} with password: ${admin.password}`);
      say("This password is shown once; keep it (or set STEPWISER_ADMIN_PASSWORD before the first start).");
    } else {
      say(`Sign in as ${adminEmail} (password printed on the first start, or STEPWISER_ADMIN_PASSWORD).`);
    }
    say("Press Ctrl-C to stop everything.");
    demoQueue = finishDemoQueueInBackground(database.url, demoSteps.signal);
  } catch (error) {
    say(`✖ ${error instanceof Error ? error.message : String(error)}`);
    await shutdown("start-up failed", 1);
  }
}

main().catch((error: unknown) => {
  say(`✖ ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
