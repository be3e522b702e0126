import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureAdminUser } from "@stepwiser/api";
import { writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { createDb } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";

/**
 * How long `bin/stepwiser` takes to answer, timed by hyperfine (Debian's package):
 * the median of 5 runs after one warm-up, for a command that loads nothing
 * (`--version`), a pure command (`label`), a command that reads the database
 * (`endpoint list`, against a running embedded PostgreSQL, beside a bare
 * connect-and-query of the same server for what connecting itself costs), and the
 * old way of running the CLI through tsx for comparison.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(root, "bin", "stepwiser");
const RUNS = 5;

const hyperfineVersion = spawnSync("hyperfine", ["--version"], { encoding: "utf8" });
if (hyperfineVersion.status !== 0) {
  console.error("this benchmark times commands with hyperfine: apt-get install -y hyperfine");
  process.exit(1);
}

interface Timed {
  median: number;
  min: number;
  max: number;
}

function hyperfine(command: string, env: NodeJS.ProcessEnv = process.env): Timed {
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-cli-bench-"));
  const exported = path.join(scratch, "result.json");
  // A command must succeed before it is timed: otherwise say why it failed.
  const [program, ...args] = command.split(" ");
  const probe = spawnSync(program!, args, { cwd: root, env, encoding: "utf8" });
  if (probe.status !== 0) throw new Error(`${command} failed (exit ${probe.status}): ${probe.stderr}`);
  execFileSync("hyperfine", ["--warmup", "1", "--runs", String(RUNS), "--shell=none", "--style", "basic", "--export-json", exported, command], { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });
  const result = (JSON.parse(readFileSync(exported, "utf8")) as { results: Array<{ median: number; min: number; max: number }> }).results[0]!;
  rmSync(scratch, { recursive: true, force: true });
  return { median: result.median, min: result.min, max: result.max };
}

const seconds = (t: Timed) => `${t.median.toFixed(2)} s (${t.min.toFixed(2)}–${t.max.toFixed(2)})`;

// The machine's own Node is what the shebang finds; the pinned Node is what the studio runs on.
const pinned = readFileSync(path.join(root, ".node-version"), "utf8").trim();
const hostNode = process.env.STEPWISER_HOST_NODE ?? "node";
const hostVersion = execFileSync(hostNode, ["--version"], { encoding: "utf8" }).trim();
// Built before timing, as the first run of a fresh checkout does once.
execFileSync(process.execPath, [bin, "--version"], { stdio: "ignore" });

const label = "label --rule rel-ratio --gamma 0.7 --counts 8/16,12/16,9/16";
const rows: BenchmarkRow[] = [];
const version = hyperfine(`${hostNode} ${bin} --version`);
rows.push({ metric: `bin/stepwiser --version (machine's Node ${hostVersion}${hostVersion.startsWith(`v${pinned.split(".")[0]}.`) ? "" : `, runs itself again on Node ${pinned}`})`, value: seconds(version), target: "< 1.0 s", met: version.median < 1.0 });
const pure = hyperfine(`${hostNode} ${bin} ${label}`);
rows.push({ metric: `bin/stepwiser ${label}`, value: seconds(pure), target: "< 1.5 s", met: pure.median < 1.5 });
rows.push({ metric: "bin/stepwiser --version on the pinned Node", value: seconds(hyperfine(`${process.execPath} ${bin} --version`)) });
rows.push({ metric: `bin/stepwiser ${label} on the pinned Node`, value: seconds(hyperfine(`${process.execPath} ${bin} ${label}`)) });

// A command that needs the database: what it costs beyond connecting.
const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-cli-bench-pg-"));
chmodSync(scratch, 0o755); // the postgres OS user must be able to enter it
const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
try {
  const url = server.url("postgres");
  await applyMigrations(url);
  // The command line acts as the first admin, as on a database the app has started once.
  const db = createDb(url, { poolSize: 1 });
  await ensureAdminUser(db, { email: "admin@bench.test", password: "bench-admin-password" });
  await db.$disconnect();
  const env = { ...process.env, DATABASE_URL: url };
  const list = hyperfine(`${process.execPath} ${bin} endpoint list`, env);
  const connectScript = path.join(scratch, "connect.mjs");
  writeFileSync(connectScript, `import pg from ${JSON.stringify(path.join(root, "packages/db/node_modules/pg/lib/index.js"))};\nconst c = new pg.Client({ connectionString: process.env.DATABASE_URL });\nawait c.connect();\nawait c.query("SELECT 1");\nawait c.end();\n`);
  const connect = hyperfine(`${process.execPath} ${connectScript}`, env);
  rows.push({ metric: "bin/stepwiser endpoint list (embedded PostgreSQL running) on the pinned Node", value: seconds(list) });
  rows.push({ metric: "a bare Node process that connects with pg and runs SELECT 1, for comparison", value: seconds(connect) });
} finally {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}

// Before the build: the CLI's TypeScript compiled on every start by tsx.
const tsx = hyperfine(`${process.execPath} --import tsx apps/cli/src/main.ts ${label}`);
rows.push({ metric: `${label} through tsx (the unbuilt sources), for comparison`, value: seconds(tsx) });

writeBenchmarkReport({
  name: "cli",
  bench: "cli-startup",
  title: "Command line start-up: bin/stepwiser",
  method: `Each command timed by ${hyperfineVersion.stdout.trim()} (\`--warmup 1 --runs ${RUNS} --shell=none\`), median with the fastest and slowest run in brackets, wall time of the whole process as a shell sees it. \`bin/stepwiser\` runs the command line built to plain JavaScript by esbuild (apps/cli/dist; built before the first timing, as the first run on a fresh checkout does once); on a Node older than 22.19 it starts itself again on the pinned Node ${pinned} the launcher keeps in .cache/. The database command runs against an embedded PostgreSQL on this machine, migrated and empty.`,
  limits: "Start-up only: a command's own work (an import, a run) is measured by its own benchmark. The machine's disk cache is warm after the warm-up run; a first run after a reboot reads the modules from disk and is slower.",
  rows,
});
